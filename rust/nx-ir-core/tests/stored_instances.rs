//! Stored component instances: every input the stored-instance fuzz target kept
//! (`tests/regressions/stored_instance/`) replayed, and every seed it starts from (each
//! component's instances, as bytes and JSON) cut at every byte and with every byte flipped,
//! through the target's own case (`nx_ir_core::testing::instances`): refused with
//! `nx-ir-component`, or restored to an instance that writes out alike and dispatches to a
//! result or a coded refusal. Never a panic. Each seed whole restores to an instance that writes
//! it again byte for byte.

use nx_ir_core::eval::component::stored::{restore_component_instance, restore_component_instance_json};
use nx_ir_core::testing::instances::{fuzz_programs, instance_seeds, stored_instance_case};
use std::path::Path;

#[test]
fn every_kept_input_and_every_damaged_seed_is_refused_or_restored_whole() {
    let programs = fuzz_programs();
    assert!(!programs.is_empty(), "the bundled conversation flow did not assemble");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/stored_instance");
    let mut kept = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries {
            let data = std::fs::read(entry.expect("an entry").path()).expect("a kept input");
            stored_instance_case(&programs, &data);
            kept += 1;
        }
    }
    let seeds = instance_seeds(&programs);
    assert!(seeds.len() >= 8, "only {} seeds", seeds.len());
    // Each seed as written restores to an instance that writes it again, byte for byte: what
    // the instance shares (its state and its handlers' captures) stays written once.
    for seed in &seeds {
        let (pick, stored) = seed.split_first().expect("a seed names its program");
        let program = &programs[usize::from(*pick)].program;
        let rewritten = if stored.first() == Some(&b'{') {
            let text = std::str::from_utf8(stored).expect("JSON is text");
            restore_component_instance_json(program, text).and_then(|it| it.to_json(program)).map(String::into_bytes)
        } else {
            restore_component_instance(program, stored).and_then(|it| it.to_bytes(program))
        };
        assert_eq!(rewritten.expect("a seed restores"), stored, "a seed of program {pick} does not write out as it was read");
    }
    let mut damaged = 0;
    for seed in seeds.iter().filter(|seed| seed.len() < 400) {
        stored_instance_case(&programs, seed);
        for at in 1..seed.len() {
            stored_instance_case(&programs, &seed[..at]);
            let mut flipped = seed.clone();
            flipped[at] ^= 0x5A;
            stored_instance_case(&programs, &flipped);
            damaged += 2;
        }
    }
    println!("stored instances: {kept} kept inputs, {} seeds, {damaged} damaged seeds", seeds.len());
    assert!(damaged > 1000);
}
