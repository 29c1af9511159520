//! Preparing, linking and compiling an image does work in proportion to its size, however its
//! entries share its strings: an image of tens of thousands of nodes, fields, cases or types
//! that all name one string of tens of kilobytes made compiling hash that string once for each
//! (1.9 s for a 2.1 MB image of 100,000 member nodes naming one 100,000-byte name), and
//! validating it compare the string once per comparison of a sort. Held to a counter of the
//! work compiling does on names (`CompiledProgram::compile_work`), never a timing.

use std::sync::Arc;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::eval::CompiledProgram;
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::Program;
use nx_ir_core::model::{Decl, Field, Module, Node, Ref, Type, UnionCaseDecl};
use nx_ir_core::writer::encode;

/// Entries naming the long string.
const COUNT: usize = 20_000;
/// The long string's length.
const LONG: usize = 20_000;

/// A module of one function `f(r: object) = [..]` whose list holds `items` (nodes after the
/// parameter's node 0); every function of it has that list as its body.
fn module_with(items: impl FnOnce(&mut Module) -> Vec<Node>) -> Module {
    let text = "module work.nx fingerprint 1\nentrypoints functions [f] components []\n\nfunction f(r: object) =\n  [r]\n";
    let mut module = assemble(text, &AssembleOptions::default()).expect("assembles");
    let made = items(&mut module);
    let mut nodes = vec![module.nodes[0].clone()];
    let first = nodes.len() as u32;
    nodes.extend(made);
    let last = nodes.len() as u32;
    nodes.push(Node::Array { items: (first..last).collect() });
    module.nodes = nodes;
    for decl in &mut module.declarations {
        if let Decl::Function { body, .. } = decl {
            *body = last;
        }
    }
    module.debug = None;
    module
}

/// The long string, added to the module's strings: its index.
fn long_string(module: &mut Module, fill: char) -> u32 {
    module.strings.push(fill.to_string().repeat(LONG));
    module.strings.len() as u32 - 1
}

/// Prepares, links and compiles `module` from its bytes: the image's size and the compile's
/// work on names.
fn compiled(module: &Module) -> (usize, u64) {
    let bytes = encode(module);
    let size = bytes.len();
    let prepared = PreparedModule::from_vec(bytes).expect("prepares");
    let program = Program::prepare_self_contained(Arc::new(prepared)).expect("links");
    let compiled = CompiledProgram::compile(&program).expect("compiles");
    (size, compiled.compile_work())
}

fn assert_in_proportion(what: &str, module: &Module) {
    let (size, work) = compiled(module);
    // Each string hashed a few times at most (interned, made a literal, looked up), and a unit
    // per entry naming it; not once per entry.
    assert!(work < 4 * size as u64, "{what}: {work} units of work on names for an image of {size} bytes");
    assert!(size < COUNT * 40 + 2 * LONG + 4096, "{what}: the image is {size} bytes");
}

#[test]
fn members_of_one_long_name_are_compiled_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let name = long_string(module, 'm');
        (0..COUNT).map(|_| Node::Member { base: 0, member: name }).collect()
    });
    assert_in_proportion("members", &module);
}

#[test]
fn literals_of_one_long_text_are_compiled_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let text = long_string(module, 's');
        (0..COUNT).map(|_| Node::String { value: text }).collect()
    });
    assert_in_proportion("literals", &module);
}

#[test]
fn references_to_one_long_named_function_are_compiled_in_proportion_to_the_image() {
    // Its body is the list as `f`'s is (`module_with` gives every function that body).
    let module = module_with(|module| {
        let name = long_string(module, 'g');
        module.declarations.push(Decl::Function { name, params: Vec::new(), body: 0, result: None, result_flags: 0 });
        (0..COUNT).map(|_| Node::Reference(Ref { slot: 0, name })).collect()
    });
    assert_in_proportion("references", &module);
}

#[test]
fn types_of_one_long_unknown_name_are_compiled_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let name = long_string(module, 't');
        module.types.extend((0..COUNT).map(|_| Type::Primitive { name }));
        Vec::new()
    });
    assert_in_proportion("types", &module);
}

#[test]
fn a_union_naming_one_long_case_many_times_is_compiled_in_proportion_to_the_image() {
    // Its long name and the case's, joined into the case's type name: once, not per case.
    let module = module_with(|module| {
        let union = long_string(module, 'u');
        let case = long_string(module, 'c');
        let cases = (0..COUNT).map(|_| UnionCaseDecl { name: case, fields: Vec::new(), is_constant: 1 }).collect();
        module.declarations.push(Decl::Union { name: union, cases, bases: Vec::new(), property_target: None });
        Vec::new()
    });
    assert_in_proportion("union cases", &module);
}

#[test]
fn a_record_of_many_fields_of_one_long_name_is_compiled_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let record = long_string(module, 'r');
        let field = long_string(module, 'f');
        let ty = module.types.len() as u32;
        module.types.push(Type::Primitive { name: module.strings.iter().position(|s| s == "object").map_or(0, |at| at as u32) });
        let fields = (0..COUNT).map(|_| Field { name: field, ty, default: None, flags: 0 }).collect();
        module.declarations.push(Decl::Record { name: record, fields, bases: Vec::new(), is_abstract: 0, update_target: None });
        Vec::new()
    });
    assert_in_proportion("record fields", &module);
}
