//! Our explain against the reference `explain_nx_ir_image` of the same bytes, and the reference
//! runtime's prepare of them: every conformance corpus text assembled by our assembler as schema
//! 5 (against `nx-ir`/`nx-ir-runtime` 0.7.0) and as schema 6 (against 0.10.0), and our schema 6
//! samples (`rust/nx-ir-core/tests/schema6/`) and construct texts, whose explanation must also be
//! their text.

#[path = "../../rust/nx-ir-core/tests/support/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use nx_ir_core::assemble::{assemble_image, AssembleOptions};
use nx_ir_core::explain::explain_image;
use nx_ir_core::testing::schema6::{construct_texts, SAMPLES};
use std::path::PathBuf;

/// The corpus: `NX_IR_CONFORMANCE`, or `shared/nx-ir-conformance` beside the checkout.
fn corpus_dir() -> Option<PathBuf> {
    let path = match std::env::var_os("NX_IR_CONFORMANCE") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/nx-ir-conformance"),
    };
    if !path.is_dir() {
        println!("conformance corpus not found (set NX_IR_CONFORMANCE); skipped");
    }
    path.is_dir().then_some(path)
}

/// The reference's explanation of `image` and whether its runtime prepares it, for `schema`.
fn reference(schema: u32, image: &[u8]) -> (Result<String, String>, Result<(), String>) {
    if schema == 5 {
        (
            ref5_ir::explain_nx_ir_image(image).map_err(|e| e.to_string()),
            ref5_runtime::PreparedModule::prepare(image.to_vec()).map(|_| ()).map_err(|e| format!("{e:?}")),
        )
    } else {
        (
            ref6_ir::explain_nx_ir_image(image).map_err(|e| e.to_string()),
            ref6_runtime::PreparedModule::prepare(image.to_vec()).map(|_| ()).map_err(|e| format!("{e:?}")),
        )
    }
}

/// What disagrees about one image, if anything.
fn disagreement(schema: u32, image: &[u8]) -> Option<String> {
    let ours = explain_image(image).map_err(|e| e.to_string());
    let (theirs, prepared) = reference(schema, image);
    if let Err(error) = prepared {
        return Some(format!("the reference runtime refuses it: {error}"));
    }
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) if ours == theirs => None,
        (Ok(ours), Ok(theirs)) => {
            let line = ours.lines().zip(theirs.lines()).position(|(a, b)| a != b);
            Some(format!("explanations differ at line {line:?}:\nours:\n{ours}\ntheirs:\n{theirs}"))
        }
        (ours, theirs) => Some(format!("ours {ours:?}, theirs {theirs:?}")),
    }
}

#[test]
fn corpus_images_explain_as_the_reference_explains_them_in_both_schemas() {
    let Some(dir) = corpus_dir() else { return };
    let (mut agreed, mut failures) = (0, Vec::new());
    for program in corpus::programs(&dir) {
        let texts = corpus::program_texts(&program);
        let linked = corpus::linked(&texts);
        for schema in [5, 6] {
            for mut input in corpus::every_text(&program, &texts) {
                input.options.schema = schema;
                let what = format!("{}/{} as schema {schema}", corpus::name(&program), input.file);
                match input.image(&linked) {
                    Err(error) => failures.push(format!("{what}: does not assemble: {error}")),
                    Ok(image) => match disagreement(schema, &image) {
                        None => agreed += 1,
                        Some(problem) => failures.push(format!("{what}: {problem}")),
                    },
                }
            }
        }
    }
    println!("{agreed} corpus images (both schemas) explain as the reference explains them");
    assert!(agreed > 50);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn schema_6_samples_explain_as_the_reference_explains_them() {
    for (name, text) in SAMPLES {
        let image = assemble_image(text, &AssembleOptions::default()).expect("the sample assembles");
        assert_eq!(disagreement(6, &image), None, "{name}");
        assert_eq!(ref6_ir::explain_nx_ir_image(&image).expect("explains"), text, "{name}");
    }
}

#[test]
fn every_form_of_each_schema_6_construct_explains_as_the_reference_explains_it() {
    let texts = construct_texts();
    for text in &texts {
        let image = assemble_image(text, &AssembleOptions::default()).expect("the text assembles");
        assert_eq!(disagreement(6, &image), None, "{text}");
        assert_eq!(&ref6_ir::explain_nx_ir_image(&image).expect("explains"), text);
    }
    println!("{} construct texts", texts.len());
}

#[test]
fn the_built_in_preludes_are_the_reference_preludes() {
    for schema in [5, 6] {
        let prelude = nx_ir_core::prelude::builtin(schema).expect("the prelude");
        assert_eq!(disagreement(schema, prelude.bytes()), None, "schema {schema}");
    }
}
