//! The differential fuzz target's case (`nx_agent_oracle::differential`, run by `oracle/fuzz/`)
//! outside the fuzzer: every input the target ever found a disagreement on, kept under
//! `tests/regressions/differential/`, and a fixed sample of the target's structured mutations of
//! every corpus program in both schemas.

use nx_agent_oracle::corpus;
use nx_agent_oracle::differential::{differential_case, Skip, Stage, Verdict};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::testing::fuzz::{mutate_evaluate_case, write_chunks};
use std::path::Path;

/// What a kept input must do now, by the start of its file name: `skip-field-twice-` inputs
/// declare a field twice and are not compared past linking; every other input must agree.
fn expected(name: &str) -> Option<Skip> {
    name.starts_with("skip-field-twice-").then_some(Skip::FieldTwice)
}

#[test]
fn every_kept_finding_agrees() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/differential");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/regressions/differential")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    inputs.sort();
    let (mut failures, mut verdicts) = (Vec::new(), Vec::new());
    for path in &inputs {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let verdict = differential_case(&std::fs::read(path).expect("a kept input"));
        let fine = match (expected(name), &verdict) {
            (Some(skip), Verdict::Skipped(skipped)) => skip == *skipped,
            (None, Verdict::Agreed(_)) => true,
            _ => false,
        };
        if !fine {
            failures.push(format!("{name}: {verdict:?}"));
        }
        verdicts.push(format!("{name}: {verdict:?}"));
    }
    println!("kept differential findings: {} inputs\n  {}", inputs.len(), verdicts.join("\n  "));
    assert!(!inputs.is_empty(), "no kept inputs under {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Per corpus program and schema, each module as the entry calling each of its function
/// entrypoints with no arguments (budget 10,000, no input limit), and eight structured mutations
/// of each call: no disagreement, and most mutants reach a call in both engines.
#[test]
fn structured_mutations_of_the_corpus_agree() {
    let Some(dir) = corpus::require("differential structured mutations") else { return };
    let (mut inputs, mut called, mut skipped, mut disagreements) = (0usize, 0usize, 0usize, Vec::new());
    for schema in [5, 6] {
        for program in corpus::programs(&dir, schema) {
            let images: Vec<Vec<u8>> = program.variant(false).iter().map(|image| image.bytes.clone()).collect();
            for entry in 0..images.len() {
                let mut parts: Vec<&[u8]> = vec![&images[entry]];
                parts.extend(images.iter().enumerate().filter(|(at, _)| *at != entry).map(|(_, image)| image.as_slice()));
                let functions = PreparedModule::from_slice(&images[entry]).expect("prepares").function_entrypoints().len();
                for function in 0..functions.min(256) {
                    // flags 8: no input limit; the call: entrypoint `function`, no arguments.
                    let call = [function as u8, 0, 0, 0, 0, 0, 0, 0, 0, 0];
                    let mut input = vec![8u8];
                    input.extend(write_chunks(&[&call]));
                    input.extend(write_chunks(&parts));
                    let mutants = (1..=8u64).filter_map(|seed| mutate_evaluate_case(&input, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
                    for case in std::iter::once(input.clone()).chain(mutants) {
                        inputs += 1;
                        match differential_case(&case) {
                            Verdict::Agreed(Stage::SameValue | Stage::SameFailure) => called += 1,
                            Verdict::Disagreed(what) => {
                                disagreements.push(format!("{} schema {schema} entry {entry}: {what}", program.name))
                            }
                            Verdict::Skipped(_) => skipped += 1,
                            Verdict::Agreed(_) => {}
                        }
                    }
                }
            }
        }
    }
    println!("differential structured mutations: {inputs} inputs, {called} calls compared, {skipped} not compared");
    assert!(inputs > 1000 && called * 2 > inputs, "{inputs} inputs, {called} calls compared");
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}
