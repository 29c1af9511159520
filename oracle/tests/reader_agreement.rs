//! The reader's refusals against the reference runtimes' prepare: the schema 6 reader cases of
//! `nx_ir_core::testing::schema6` (whose codes `rust/nx-ir-core/tests/schema6.rs` holds
//! nx-ir-core to) must get the same codes from `nx-ir-runtime` 0.10.0 (0.7.0 for schema 5), and
//! every single-cell damage of the schema 6 samples and of a few corpus images must get the same
//! list of diagnostic codes from both.

use nx_ir_core::assemble::{assemble_image, AssembleOptions};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::testing::schema6::{reader_cases, SAMPLES};
use std::path::PathBuf;

/// The reference runtime of `schema`'s diagnostic codes for `image` (none: prepared).
fn reference_codes(schema: u32, image: &[u8]) -> Vec<&'static str> {
    let codes = if schema == 5 {
        ref5_runtime::PreparedModule::prepare(image.to_vec())
            .err()
            .map(|e| e.diagnostics.iter().map(|d| d.code).collect())
    } else {
        ref6_runtime::PreparedModule::prepare(image.to_vec())
            .err()
            .map(|e| e.diagnostics.iter().map(|d| d.code).collect())
    };
    codes.unwrap_or_default()
}

fn our_codes(image: &[u8]) -> Vec<&'static str> {
    PreparedModule::from_slice(image).err().map(|e| e.diagnostics.iter().map(|d| d.code).collect()).unwrap_or_default()
}

#[test]
fn the_reference_gives_each_reader_case_its_codes() {
    for case in reader_cases() {
        assert_eq!(reference_codes(case.schema, &case.image), case.codes, "{}", case.name);
    }
}

/// Every cell of `image` overwritten with each of a few values: the differences found.
fn sweep(schema: u32, what: &str, image: &[u8], differences: &mut Vec<String>) -> usize {
    let mut damaged = image.to_vec();
    let mut count = 0;
    // Kinds and small operands, schema 6's kind numbers, `none` and a large cell.
    let values = [0u32, 1, 2, 3, 7, 26, 27, 28, 29, 0xFFFF_FFFF, 0x7FFF_FFF0];
    for at in (8..image.len() / 4 * 4).step_by(4) {
        for value in values {
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
            count += 1;
            let (ours, theirs) = (our_codes(&damaged), reference_codes(schema, &damaged));
            if ours != theirs {
                differences.push(format!("{what}, byte {at} = {value:#x}: ours {ours:?}, reference {theirs:?}"));
            }
        }
        damaged[at..at + 4].copy_from_slice(&image[at..at + 4]);
    }
    count
}

#[test]
fn damaged_images_get_the_reference_codes() {
    let mut differences = Vec::new();
    let mut count = 0;
    for (name, text) in SAMPLES {
        let image = assemble_image(text, &AssembleOptions::default()).expect("assembles");
        count += sweep(6, name, &image, &mut differences);
    }
    let corpus = match std::env::var_os("NX_IR_CONFORMANCE") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/nx-ir-conformance"),
    };
    for file in ["components/expected/main.nx.stripped.nxir.txt", "occurrence-patterns/expected/main.nx.stripped.nxir.txt"] {
        let Ok(text) = std::fs::read_to_string(corpus.join(file)) else { continue };
        for schema in [5, 6] {
            let options = AssembleOptions { schema, ..AssembleOptions::default() };
            let image = assemble_image(&text, &options).expect("assembles");
            count += sweep(schema, &format!("{file} as schema {schema}"), &image, &mut differences);
        }
    }
    println!("{count} damaged images, {} differences", differences.len());
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
