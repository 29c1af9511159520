//! The conformance corpus assembled as schema 6. The corpus is NX 0.7's and uses nothing schema 6
//! added, so as schema 6 every text must round-trip (explain gives the same text back) and every
//! function entrypoint must give exactly what its schema 5 form gives: the same value or failure
//! code, the same operation count and input size. (`eval_conformance.rs` holds the schema 5 form
//! to the corpus' recorded results.)

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use nx_ir_core::assemble::assemble_image_with_links;
use nx_ir_core::eval::json::{from_json, to_json};
use nx_ir_core::eval::{evaluate_function_with, CompiledProgram, HostValue, HostValueBuilder, Limits, Usage};
use nx_ir_core::explain::explain_image;
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::model::kinds;
use support::corpus;

fn field<'a>(value: &'a HostValue, name: &str) -> Option<&'a HostValue> {
    match value {
        HostValue::Record(record) => record.get(name),
        _ => None,
    }
}

/// `(module, function, arguments)` of each entrypoint `program.json` lists.
fn entrypoints(dir: &Path) -> Vec<(String, String, Vec<HostValue>)> {
    let Ok(text) = std::fs::read_to_string(dir.join("program.json")) else { return Vec::new() };
    let program = from_json(&text).expect("program.json is JSON");
    let Some(HostValue::List(entries)) = field(&program, "entrypoints") else { return Vec::new() };
    let text = |value: Option<&HostValue>| match value {
        Some(HostValue::Str(text)) => text.to_string(),
        _ => String::new(),
    };
    entries
        .iter()
        .map(|entry| {
            let args = match field(entry, "arguments") {
                Some(HostValue::List(args)) => args.clone(),
                _ => Vec::new(),
            };
            (text(field(entry, "module")), text(field(entry, "function")), args)
        })
        .collect()
}

/// The program's modules (stripped texts) assembled as `schema` and prepared, by identity.
fn prepared(dir: &Path, schema: u32) -> HashMap<String, Arc<PreparedModule>> {
    let texts = corpus::program_texts(dir);
    let linked = corpus::linked(&texts);
    corpus::variant(dir, &texts, false)
        .into_iter()
        .map(|mut input| {
            input.options.schema = schema;
            let image = input.image(&linked).unwrap_or_else(|e| panic!("{}: {e}", input.identity));
            let module = PreparedModule::from_vec(image).unwrap_or_else(|e| panic!("{}: {e}", input.identity));
            assert_eq!(module.schema(), schema);
            (input.identity, Arc::new(module))
        })
        .collect()
}

/// What one evaluation gives: its value (as JSON) or failure code, its count and input size.
fn outcome(modules: &HashMap<String, Arc<PreparedModule>>, module: &str, function: &str, args: &[HostValue]) -> String {
    let entry = Arc::clone(&modules[module]);
    let program = Program::link(entry, &mut |id| Ok(modules.get(id).cloned()), LinkOptions::default())
        .and_then(|program| CompiledProgram::compile(&program))
        .expect("links and compiles");
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let limits = Limits { max_operations: Some(1 << 40), max_input_size: Some(1 << 40), ..Limits::default() };
    let mut usage = Usage::default();
    let result = evaluate_function_with(&program, function, &args, &limits, &mut HostValueBuilder, &mut usage);
    let result = match result {
        Ok(value) => to_json(&value),
        Err(error) => format!("error {}", error.code()),
    };
    format!("{result}, {:?} operations, input size {:?}", usage.operations, usage.input_size)
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn every_corpus_text_round_trips_as_schema_6() {
    let Some(dir) = corpus::dir_or_skip("corpus as schema 6") else { return };
    let mut count = 0;
    for program in corpus::programs(&dir) {
        let texts = corpus::program_texts(&program);
        let linked = corpus::linked(&texts);
        for mut input in corpus::every_text(&program, &texts) {
            input.options.schema = kinds::SCHEMA_6;
            let what = format!("{}/{}", corpus::name(&program), input.file);
            let image = assemble_image_with_links(&input.text, &input.options, &linked)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let module = PreparedModule::from_slice(&image).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(module.schema(), kinds::SCHEMA_6, "{what}");
            assert_eq!(image[4], 6, "{what}: the header names schema 6");
            assert_eq!(explain_image(&image).unwrap_or_else(|e| panic!("{what}: {e}")), input.text, "{what}");
            count += 1;
        }
    }
    println!("{count} corpus texts round-trip as schema 6");
    assert!(count > 0);
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn every_corpus_entrypoint_evaluates_as_schema_6_as_it_does_as_schema_5() {
    let Some(dir) = corpus::dir_or_skip("corpus as schema 6") else { return };
    let (mut compared, mut differences) = (0, Vec::new());
    for program in corpus::programs(&dir) {
        let entries = entrypoints(&program);
        if entries.is_empty() {
            continue;
        }
        let five = prepared(&program, kinds::SCHEMA_5);
        let six = prepared(&program, kinds::SCHEMA_6);
        for (module, function, args) in entries {
            let (expected, actual) = (outcome(&five, &module, &function, &args), outcome(&six, &module, &function, &args));
            compared += 1;
            if expected != actual {
                differences.push(format!("{}/{module}::{function}: schema 5 {expected}; schema 6 {actual}", corpus::name(&program)));
            }
        }
    }
    println!("{compared} corpus entrypoints evaluated as both schemas");
    assert!(compared > 50, "the corpus holds entrypoints");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
