//! Linking (§3.4, conformance section C) over hand-built modules.

mod support;

use nx_ir_core::codes;
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::model::{Module, Node, Type};
use nx_ir_core::prelude::{builtin, prelude_model, PRELUDE_IDENTITY};
use nx_ir_core::writer::encode;
use nx_ir_core::{IrError, IrResult};
use std::sync::Arc;
use support::*;

fn prepared(model: &Module) -> Arc<PreparedModule> {
    Arc::new(PreparedModule::from_vec(encode(model)).unwrap())
}

/// Links `entry` against `modules`, by identity.
fn link_with(entry: &Arc<PreparedModule>, modules: &[Arc<PreparedModule>], options: LinkOptions) -> IrResult<Program> {
    let mut resolve = |identity: &str| Ok(modules.iter().find(|m| m.identity() == identity).cloned());
    Program::link(Arc::clone(entry), &mut resolve, options)
}

fn codes_of(error: &IrError) -> Vec<&'static str> {
    error.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn an_entry_links_against_its_dependency() {
    let entry = prepared(&sample());
    let b = prepared(&dependency("1", "Thing"));
    let program = link_with(&entry, &[Arc::clone(&b)], LinkOptions::default()).unwrap();
    let identities: Vec<&str> = program.modules().iter().map(|m| m.identity()).collect();
    assert_eq!(identities, ["main.nx", "b.nx"]);
    assert!(Arc::ptr_eq(program.entry(), &entry));
    assert!(Arc::ptr_eq(program.module("b.nx").unwrap(), &b), "linking does not copy a module");
    assert_eq!(program.module_index("b.nx"), Some(1));
    assert_eq!(program.module_index("c.nx"), None);
    assert_eq!(program.resolve_slot(0, 0), Some(0));
    assert_eq!(program.resolve_slot(0, 1), Some(1));
    assert_eq!(program.resolve_slot(0, 2), None);
    assert_eq!(program.resolve_slot(1, 0), Some(1));
    assert_eq!(program.resolve_slot(2, 0), None);
}

#[test]
fn a_module_the_resolver_does_not_supply_is_named() {
    let error = Program::prepare_self_contained(prepared(&sample())).unwrap_err();
    assert_eq!(codes_of(&error), [codes::LINK_MISSING_MODULE]);
    assert_eq!(error.message(), "Module 'main.nx' links against 'b.nx', which the resolver did not supply.");
}

#[test]
fn a_resolver_error_aborts_linking() {
    let failure = IrError::new(codes::OPTIONS, "no resolver today");
    let mut resolve = |_: &str| Err(failure.clone());
    let error = Program::link(prepared(&sample()), &mut resolve, LinkOptions::default()).unwrap_err();
    assert_eq!(error, failure);
}

#[test]
fn another_version_is_refused_unless_allowed() {
    let entry = prepared(&sample());
    let next = prepared(&dependency("next", "Thing"));
    let error = link_with(&entry, &[Arc::clone(&next)], LinkOptions::default()).unwrap_err();
    assert_eq!(codes_of(&error), [codes::LINK_VERSION]);
    for needle in ["main.nx", "b.nx", "'1'", "'next'"] {
        assert!(error.message().contains(needle), "{error} should name {needle}");
    }
    let program = link_with(&entry, &[next], LinkOptions { allow_version_mismatch: true }).unwrap();
    assert_eq!(program.modules().len(), 2);
}

#[test]
fn a_missing_declaration_is_named_even_when_versions_may_differ() {
    let entry = prepared(&sample());
    let renamed = prepared(&dependency("1", "ThingRenamed"));
    let error = link_with(&entry, &[Arc::clone(&renamed)], LinkOptions::default()).unwrap_err();
    assert_eq!(codes_of(&error), [codes::LINK_MISSING_DECLARATION]);
    assert_eq!(error.message(), "Module 'main.nx' references 'Thing' in 'b.nx', which does not declare it.");

    let other_version = prepared(&dependency("2", "ThingRenamed"));
    let error = link_with(&entry, &[other_version], LinkOptions { allow_version_mismatch: true }).unwrap_err();
    assert_eq!(codes_of(&error), [codes::LINK_MISSING_DECLARATION]);
}

#[test]
fn a_module_with_another_identity_is_refused() {
    // The resolver answers `b.nx` with the entry itself.
    let entry = prepared(&sample());
    let mut resolve = |_: &str| Ok(Some(prepared(&sample())));
    let error = Program::link(entry, &mut resolve, LinkOptions::default()).unwrap_err();
    let identity = error.diagnostics.iter().find(|d| d.code == codes::LINK_IDENTITY).expect("an identity finding");
    assert_eq!(
        identity.message,
        "Module 'main.nx' links against 'b.nx', but the resolver supplied a module whose identity is 'main.nx'."
    );
}

#[test]
fn all_findings_are_collected() {
    // Entry `a.nx` links against `b.nx` (wrong version, a name missing) and `c.nx` (absent).
    let mut a = Builder::new("a.nx", "");
    let b_slot = a.link("b.nx", "1");
    let c_slot = a.link("c.nx", "1");
    for (slot, name) in [(b_slot, "Thing"), (b_slot, "Nope"), (c_slot, "Other")] {
        let target = a.r(slot, name);
        a.ty(Type::Nominal(target));
    }
    let error =
        link_with(&prepared(&a.build()), &[prepared(&dependency("2", "Thing"))], LinkOptions::default()).unwrap_err();
    assert_eq!(codes_of(&error), [codes::LINK_VERSION, codes::LINK_MISSING_DECLARATION, codes::LINK_MISSING_MODULE]);
}

/// A module that references `Range` in the prelude, recorded at `version`.
fn range_user(version: &str) -> Module {
    let mut b = Builder::new("ranges.nx", "");
    let prelude = b.link(PRELUDE_IDENTITY, version);
    let range = b.r(prelude, "Range");
    let body = b.node(Node::Record { target: range, props: vec![], content: vec![] });
    b.function("half", body);
    b.build()
}

#[test]
fn the_built_in_prelude_is_served() {
    let program = Program::prepare_self_contained(prepared(&range_user("1"))).unwrap();
    let identities: Vec<&str> = program.modules().iter().map(|m| m.identity()).collect();
    assert_eq!(identities, ["ranges.nx", PRELUDE_IDENTITY]);
    let prelude = builtin(5).unwrap();
    assert!(Arc::ptr_eq(program.module(PRELUDE_IDENTITY).unwrap(), &prelude), "prepared once, shared");
    assert!(Arc::ptr_eq(&builtin(5).unwrap(), &prelude));
    assert_eq!(program.resolve_slot(0, 1), Some(1));

    // The built-in prelude is version-checked like any module.
    let error = Program::prepare_self_contained(prepared(&range_user("2"))).unwrap_err();
    assert_eq!(codes_of(&error), [codes::LINK_VERSION]);
}

#[test]
fn a_host_prelude_is_version_checked() {
    let mut host = prelude_model(5).expect("the prelude assembles");
    let version = host.modules[0].version as usize;
    host.strings[version] = "host-prelude".to_string();
    let host = prepared(&host);
    let entry = prepared(&range_user("1"));
    let error = link_with(&entry, &[Arc::clone(&host)], LinkOptions::default()).unwrap_err();
    assert!(error.diagnostics.iter().all(|d| d.code == codes::LINK_VERSION), "{error:?}");
    assert!(error.message().contains("host-prelude"));
    let program = link_with(&entry, &[Arc::clone(&host)], LinkOptions { allow_version_mismatch: true }).unwrap();
    assert!(Arc::ptr_eq(program.module(PRELUDE_IDENTITY).unwrap(), &host));
}

#[test]
fn modules_are_linked_breadth_first_and_reused() {
    // a → b, c; b → d, c; c → d, a. Each module references a declaration `X` of its targets.
    let module = |identity: &str, links: &[&str]| {
        let mut b = Builder::new(identity, "");
        b.record("X", vec![]);
        for link in links {
            let slot = b.link(link, "");
            let target = b.r(slot, "X");
            b.ty(Type::Nominal(target));
        }
        prepared(&b.build())
    };
    let modules = [module("b.nx", &["d.nx", "c.nx"]), module("c.nx", &["d.nx", "a.nx"]), module("d.nx", &[])];
    let a = module("a.nx", &["b.nx", "c.nx"]);
    let mut asked = Vec::new();
    let mut resolve = |identity: &str| {
        asked.push(identity.to_string());
        Ok(modules.iter().find(|m| m.identity() == identity).cloned())
    };
    let program = Program::link(a, &mut resolve, LinkOptions::default()).unwrap();
    let identities: Vec<&str> = program.modules().iter().map(|m| m.identity()).collect();
    assert_eq!(identities, ["a.nx", "b.nx", "c.nx", "d.nx"]);
    assert_eq!(asked, ["b.nx", "c.nx", "d.nx"], "each module is resolved once");
    assert_eq!(program.resolve_slot(2, 2), Some(0), "c.nx slot 2 is the entry");
    assert_eq!(program.resolve_slot(1, 1), Some(3));
}

#[test]
fn one_prepared_module_serves_many_threads() {
    let shared = prepared(&dependency("1", "Thing"));
    let image = Arc::new(encode(&sample()));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let shared = Arc::clone(&shared);
            let image = Arc::clone(&image);
            std::thread::spawn(move || {
                let entry = Arc::new(PreparedModule::prepare(image).unwrap());
                let mut resolve = |_: &str| Ok(Some(Arc::clone(&shared)));
                let program = Program::link(entry, &mut resolve, LinkOptions::default()).unwrap();
                assert!(Arc::ptr_eq(program.module("b.nx").unwrap(), &shared));
                program.modules().len()
            })
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().unwrap(), 2);
    }
    assert_eq!(Arc::strong_count(&shared), 1);
}
