//! Every explain text of the conformance corpus assembles to an image the reader accepts and
//! whose explanation is the same text, character for character. The corpus is enumerated at
//! test time, so a program added to it is covered without a code change.

mod support;

use nx_ir_core::assemble::{assemble_with_links, AssembleOptions};
use nx_ir_core::explain::{explain_image, explain_module};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::model::{Constant, Module, Type};
use nx_ir_core::writer::encode;
use std::collections::BTreeSet;
use support::corpus;

fn first_difference(expected: &str, actual: &str) -> String {
    for (number, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            return format!("line {}:\n  expected: {e}\n  actual:   {a}", number + 1);
        }
    }
    format!(
        "line counts differ: {} vs {}",
        expected.lines().count(),
        actual.lines().count()
    )
}

fn round_trip(text: &str, options: &AssembleOptions, linked: &[&str]) -> Result<Module, String> {
    let model = assemble_with_links(text, options, linked).map_err(|e| format!("assemble: {e}"))?;
    let explained = explain_module(&model).map_err(|e| format!("explain model: {e}"))?;
    if explained != text {
        return Err(format!(
            "model explains differently, {}",
            first_difference(text, &explained)
        ));
    }
    let image = encode(&model);
    PreparedModule::from_slice(&image).map_err(|e| format!("reader refuses the image: {e}"))?;
    let explained = explain_image(&image).map_err(|e| format!("explain image: {e}"))?;
    if explained != text {
        return Err(format!(
            "image explains differently, {}",
            first_difference(text, &explained)
        ));
    }
    Ok(model)
}

/// The kinds of node, type, constant and declaration a model holds, as `table:kind`.
fn kinds_in(model: &Module, into: &mut BTreeSet<String>) {
    into.extend(
        model
            .nodes
            .iter()
            .map(|node| format!("node:{}", node.kind())),
    );
    into.extend(
        model
            .declarations
            .iter()
            .map(|d| format!("declaration:{}", d.kind())),
    );
    into.extend(model.types.iter().map(|ty| {
        let kind = match ty {
            Type::Primitive { .. } => 0,
            Type::Nominal(_) => 1,
            Type::Function { .. } => 4,
            Type::Seq { .. } => 5,
            Type::AnyFunction { .. } => 6,
            Type::Constrained { .. } => 7,
        };
        format!("type:{kind}")
    }));
    into.extend(model.constants.iter().map(|constant| {
        let kind = match constant {
            Constant::Int(_) => 0,
            Constant::BigInt { .. } => 1,
            Constant::Float(_) => 2,
        };
        format!("constant:{kind}")
    }));
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn every_corpus_text_round_trips() {
    let Some(dir) = corpus::dir_or_skip("text round trip") else {
        return;
    };
    let (mut passed, mut failures, mut spans_dropped) = (0, Vec::new(), Vec::new());
    let mut covered = BTreeSet::new();
    for program in corpus::programs(&dir) {
        let texts = corpus::program_texts(&program);
        let linked = corpus::linked(&texts);
        for input in corpus::every_text(&program, &texts) {
            if input.spans_dropped {
                spans_dropped.push(input.file.clone());
            }
            match round_trip(&input.text, &input.options, &linked) {
                Ok(model) => {
                    passed += 1;
                    kinds_in(&model, &mut covered);
                }
                Err(error) => failures.push(format!("{}/{}: {error}", corpus::name(&program), input.file)),
            }
        }
    }
    let total = passed + failures.len();
    println!("{passed}/{total} corpus texts round-trip");
    if !spans_dropped.is_empty() {
        println!("assembled without their spans (no source in the corpus): {spans_dropped:?}");
    }
    assert!(total > 0, "the corpus holds no explain texts");
    assert!(
        failures.is_empty(),
        "{} of {total} texts fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let expected = (1..=25)
        .map(|kind| format!("node:{kind}"))
        .chain([0, 1, 4, 5, 6].map(|kind| format!("type:{kind}")))
        .chain((0..=2).map(|kind| format!("constant:{kind}")))
        .chain((0..=5).map(|kind| format!("declaration:{kind}")));
    let missing: Vec<String> = expected.filter(|kind| !covered.contains(kind)).collect();
    assert!(
        missing.is_empty(),
        "kinds no corpus text round-trips: {missing:?}"
    );
}
