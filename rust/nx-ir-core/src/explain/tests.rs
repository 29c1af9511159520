use super::*;
use crate::model::{Constant, ModuleEntry, Node};

/// A module `m.nx` whose one value declaration `v` is initialized by the last of `nodes`.
fn module_with(nodes: Vec<Node>) -> Module {
    let init = nodes.len().saturating_sub(1) as u32;
    Module {
        schema: 5,
        strings: vec![
            "v".into(),
            "m.nx".into(),
            String::new(),
            kinds::RUNTIME_ABI.into(),
        ],
        abi: 3,
        features: vec![],
        modules: vec![ModuleEntry {
            identity: 1,
            version: 2,
            fingerprint: 9,
        }],
        function_entrypoints: vec![],
        component_entrypoints: vec![],
        types: vec![],
        constants: vec![Constant::Int(1)],
        nodes,
        declarations: vec![Decl::Value {
            name: 0,
            init,
            ty: None,
        }],
        debug: None,
    }
}

fn malformed_message(module: &Module) -> String {
    let error = explain_module(module).expect_err("refused");
    assert_eq!(error.code(), crate::codes::MALFORMED);
    error.message().to_string()
}

#[test]
fn explains_a_minimal_module() {
    let module = module_with(vec![
        Node::Number { constant: 0 },
        Node::Unary { op: 0, operand: 0 },
    ]);
    assert_eq!(
        explain_module(&module).expect("explains"),
        "module m.nx fingerprint 9\nentrypoints functions [] components []\n\nvalue v =\n  neg 1\n"
    );
}

#[test]
fn bad_indices_are_errors() {
    let mut module = module_with(vec![Node::String { value: 99 }]);
    assert!(malformed_message(&module).contains("string index 99"));
    module.nodes = vec![Node::Number { constant: 5 }];
    assert!(malformed_message(&module).contains("constant index 5"));
    module.nodes = vec![Node::Binary {
        op: 42,
        lhs: 0,
        rhs: 0,
    }];
    assert!(malformed_message(&module).contains("binary operator 42"));
    module.nodes = vec![Node::Reference(Ref { slot: 3, name: 0 })];
    assert!(malformed_message(&module).contains("module slot 3"));
    module.function_entrypoints = vec![7];
    assert!(malformed_message(&module).contains("declaration index 7"));
    module.modules.clear();
    assert!(malformed_message(&module).contains("module table is empty"));
}

#[test]
fn nesting_is_bounded_and_a_cycle_is_an_error() {
    let cyclic = module_with(vec![Node::Unary { op: 1, operand: 0 }]);
    assert!(malformed_message(&cyclic).contains("nest too deeply"));
    let mut nodes = vec![Node::Number { constant: 0 }];
    nodes.extend((0..nodes::MAX_DEPTH as u32 - 1).map(|operand| Node::Unary { op: 0, operand }));
    let deep = module_with(nodes);
    assert!(explain_module(&deep)
        .expect("explains")
        .contains(&"neg ".repeat(900)));
}
