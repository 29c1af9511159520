//! Preparing, linking and compiling an image does work in proportion to its size, however its
//! entries share its strings: an image of tens of thousands of nodes, fields, cases or types
//! that all name one string of tens of kilobytes made compiling hash that string once for each
//! (1.9 s for a 2.1 MB image of 100,000 member nodes naming one 100,000-byte name), and
//! validating it compare the string once per comparison of a sort. Held to a counter of the
//! work compiling does on names (`CompiledProgram::compile_work`), never a timing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::error::REPORT_BYTES;
use nx_ir_core::eval::CompiledProgram;
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::model::{Constant, Decl, Field, Module, ModuleEntry, Node, Ref, Type, UnionCaseDecl};
use nx_ir_core::writer::encode;

/// Counts the bytes each thread allocates, so a test sees all the memory loading takes, however
/// it is made (a counter that missed some could not fail).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|total| total.set(total.get() + bytes as u64));
}

// SAFETY: every call is passed on to the system allocator unchanged; counting allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The bytes `work` allocates on this thread.
fn allocated_by<T>(work: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATED.with(Cell::get);
    let made = work();
    (made, ALLOCATED.with(Cell::get) - before)
}

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

/// Prepares, links and compiles `module` from its bytes, and reads its declarations (what a host
/// describing its API does): the image's size, the compile's work on names and the bytes all
/// of it allocated.
fn compiled(module: &Module) -> (usize, u64, u64) {
    let bytes = encode(module);
    let size = bytes.len();
    let (work, allocated) = allocated_by(|| {
        let prepared = Arc::new(PreparedModule::from_vec(bytes).expect("prepares"));
        let declarations = prepared.declarations();
        let program = Program::prepare_self_contained(prepared).expect("links");
        let compiled = CompiledProgram::compile(&program).expect("compiles");
        drop(declarations);
        compiled.compile_work()
    });
    (size, work, allocated)
}

/// What loading may allocate beyond [`ALLOCATED_PER_BYTE`] a byte of the image: the prelude's
/// program and the tables every program has.
const ALLOCATED_BASE: u64 = 4 << 20;
/// What loading may allocate per byte of the image: decoded, compiled and described, each entry
/// takes a few times its encoded size.
const ALLOCATED_PER_BYTE: u64 = 64;

fn assert_in_proportion(what: &str, module: &Module) {
    assert_in_proportion_with(what, module, 0);
}

/// As [`assert_in_proportion`], where compiling also makes `made` bytes of names the image
/// implies (its union cases' type names, which preparing holds in proportion to it), each
/// hashed a few times.
fn assert_in_proportion_with(what: &str, module: &Module, made: u64) {
    let (size, work, allocated) = compiled(module);
    // Each string hashed a few times at most (interned, made a literal, looked up), and a unit
    // per entry naming it; not once per entry.
    assert!(
        work < 4 * size as u64 + 3 * made,
        "{what}: {work} units of work on names for an image of {size} bytes"
    );
    assert!(
        allocated < ALLOCATED_BASE + ALLOCATED_PER_BYTE * size as u64,
        "{what}: {allocated} bytes allocated for an image of {size} bytes"
    );
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

/// `COUNT` distinct short strings added to the module's strings: their indices.
fn distinct_strings(module: &mut Module, prefix: &str) -> Vec<u32> {
    (0..COUNT)
        .map(|i| {
            module.strings.push(format!("{prefix}{i}"));
            module.strings.len() as u32 - 1
        })
        .collect()
}

/// A module declaring a union of `COUNT` distinct short cases whose name is `union_name` long.
fn union_of_many_cases(union_name: usize) -> Module {
    module_with(|module| {
        module.strings.push("u".repeat(union_name));
        let union = module.strings.len() as u32 - 1;
        let cases = distinct_strings(module, "c")
            .into_iter()
            .map(|case| UnionCaseDecl { name: case, fields: Vec::new(), is_constant: 0 })
            .collect();
        module.declarations.push(Decl::Union { name: union, cases, bases: Vec::new(), property_target: None });
        Vec::new()
    })
}

#[test]
fn a_union_of_many_cases_is_loaded_in_proportion_to_the_image() {
    // Each case's type name joins the union's name (here 100 bytes) to its own: 2 MB in all,
    // five times the image, as preparing allows.
    let made: u64 = (0..COUNT).map(|i| 100 + 1 + format!("c{i}").len() as u64).sum();
    assert_in_proportion_with("cases of a union", &union_of_many_cases(100), made);
}

#[test]
fn a_union_whose_case_type_names_dwarf_the_image_is_refused_before_they_are_made() {
    // 20,000 cases of a 20,000-byte name: 400 MB of type names for a 450 kB image.
    let bytes = encode(&union_of_many_cases(LONG));
    let size = bytes.len() as u64;
    let (refused, allocated) = allocated_by(|| PreparedModule::from_vec(bytes).err());
    let refused = refused.expect("refused");
    assert_eq!(refused.code(), "nx-ir-resource-limit");
    assert!(refused.message().contains("union cases' type names"), "{}", refused.message());
    assert!(allocated < ALLOCATED_BASE + ALLOCATED_PER_BYTE * size, "{allocated} bytes allocated for an image of {size}");
}

#[test]
fn numbers_of_one_long_integer_constant_are_loaded_in_proportion_to_the_image() {
    // An integer too wide for 64 bits fails where it is evaluated, with a message that spells it.
    let module = module_with(|module| {
        let digits = long_string(module, '7');
        let constant = module.constants.len() as u32;
        module.constants.push(Constant::BigInt { digits });
        (0..COUNT).map(|_| Node::Number { constant }).collect()
    });
    assert_in_proportion("wide integers", &module);
}

#[test]
fn wide_integer_constants_of_one_long_text_are_loaded_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let digits = long_string(module, '8');
        let first = module.constants.len() as u32;
        module.constants.extend((0..COUNT).map(|_| Constant::BigInt { digits }));
        (0..COUNT as u32).map(|at| Node::Number { constant: first + at }).collect()
    });
    assert_in_proportion("wide integer constants", &module);
}

/// Prepares (and, where `linked` is given, links against it) an image that must be refused with
/// `code`: what refusing it allocated is in proportion to the image, however many of its entries
/// earn a diagnostic naming a long string.
fn assert_refused_in_proportion(what: &str, module: &Module, linked: Option<&Module>, code: &str) {
    let bytes = encode(module);
    let size = bytes.len() as u64 + linked.map_or(0, |linked| encode(linked).len() as u64);
    let linked = linked.map(|linked| Arc::new(PreparedModule::from_vec(encode(linked)).expect("the linked module prepares")));
    let (refused, allocated) = allocated_by(|| {
        let prepared = Arc::new(PreparedModule::from_vec(bytes)?);
        let mut resolve = |_: &str| Ok(linked.clone());
        Program::link(prepared, &mut resolve, LinkOptions::default()).map(|_| ())
    });
    assert!(
        allocated < ALLOCATED_BASE + ALLOCATED_PER_BYTE * size,
        "{what}: {allocated} bytes allocated to refuse {size} bytes of images"
    );
    let refused = refused.expect_err("refused");
    assert_eq!(refused.code(), code, "{what}");
    let last = refused.diagnostics.last().expect("a diagnostic");
    assert!(last.message.starts_with("More diagnostics were left out"), "{what}: the last diagnostic is {:.200}", last.message);
    assert_eq!(last.code, code, "{what}");
    let messages: usize = refused.diagnostics.iter().map(|d| d.message.len()).sum();
    assert!(messages <= REPORT_BYTES, "{what}: {messages} bytes of messages");
}

/// A module of a long identity (its strings' first one) declaring nothing but `f`.
fn long_named_module(items: impl FnOnce(&mut Module) -> Vec<Node>) -> Module {
    let mut module = module_with(items);
    let identity = long_string(&mut module, 'i');
    module.modules[0].identity = identity;
    module
}

/// Adds `slots` module-table entries to `module`, each naming `linked`'s identity (one string).
fn links_to(module: &mut Module, linked: &Module, slots: usize) {
    module.strings.push(linked.strings[linked.modules[0].identity as usize].clone());
    let identity = module.strings.len() as u32 - 1;
    let version = module.modules[0].version;
    module.modules.extend((0..slots).map(|_| ModuleEntry { identity, version, fingerprint: 1 }));
}

#[test]
fn declarations_of_one_long_name_in_a_long_named_module_are_refused_in_proportion_to_the_image() {
    // Each duplicate's diagnostic names the module and the declaration.
    let module = long_named_module(|module| {
        let name = long_string(module, 'd');
        module.declarations.extend((0..COUNT).map(|_| Decl::Value { name, ty: None, init: 0 }));
        Vec::new()
    });
    assert_refused_in_proportion("duplicate declarations", &module, None, "nx-ir-duplicate-declaration");
}

#[test]
fn references_to_many_undeclared_names_of_a_long_named_module_are_refused_in_proportion_to_the_image() {
    let module = long_named_module(|module| {
        distinct_strings(module, "missing").into_iter().map(|name| Node::Reference(Ref { slot: 0, name })).collect()
    });
    assert_refused_in_proportion("undeclared references", &module, None, "nx-ir-reference");
}

#[test]
fn text_nodes_of_one_long_unknown_type_are_refused_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let name = long_string(module, 't');
        (0..COUNT).map(|_| Node::Text { operand: 0, type_name: name }).collect()
    });
    assert_refused_in_proportion("text nodes", &module, None, "nx-ir-malformed");
}

#[test]
fn references_to_many_names_a_long_named_linked_module_lacks_are_refused_in_proportion_to_the_images() {
    // Each missing declaration's diagnostic names both modules.
    let linked = long_named_module(|_| Vec::new());
    let module = long_named_module(|module| {
        links_to(module, &linked, 1);
        distinct_strings(module, "missing").into_iter().map(|name| Node::Reference(Ref { slot: 1, name })).collect()
    });
    assert_refused_in_proportion("missing declarations", &module, Some(&linked), "nx-ir-link-missing-declaration");
}

#[test]
fn a_module_table_naming_one_long_identity_many_times_is_linked_in_proportion_to_the_images() {
    let linked = long_named_module(|_| Vec::new());
    let module = module_with(|module| {
        links_to(module, &linked, COUNT);
        Vec::new()
    });
    let bytes = encode(&module);
    let size = (bytes.len() + encode(&linked).len()) as u64;
    let linked = Arc::new(PreparedModule::from_vec(encode(&linked)).expect("the linked module prepares"));
    let mut resolved = 0;
    let (program, allocated) = allocated_by(|| {
        let prepared = Arc::new(PreparedModule::from_vec(bytes).expect("prepares"));
        let mut resolve = |_: &str| {
            resolved += 1;
            Ok(Some(Arc::clone(&linked)))
        };
        Program::link(prepared, &mut resolve, LinkOptions::default())
    });
    let program = program.expect("links");
    assert_eq!(resolved, 1, "the resolver is asked once per identity");
    assert_eq!(program.modules().len(), 2);
    assert!(allocated < ALLOCATED_BASE + ALLOCATED_PER_BYTE * size, "{allocated} bytes allocated to link {size}");
}

#[test]
fn required_features_of_one_long_unknown_name_are_refused_in_proportion_to_the_image() {
    let module = module_with(|module| {
        let feature = long_string(module, 'x');
        module.features.extend(vec![feature; COUNT]);
        Vec::new()
    });
    assert_refused_in_proportion("unknown features", &module, None, "nx-ir-required-feature");
}

#[test]
fn many_declarations_in_a_long_named_module_are_refused_before_their_qualified_names_are_made() {
    // Each declaration's `identity::name` (made when a diagnostic or a component's key needs
    // it) joins the module's identity to its name: 20,000 of a 20,000-byte identity are 400 MB.
    let module = long_named_module(|module| {
        let names = distinct_strings(module, "v");
        module.declarations.extend(names.into_iter().map(|name| Decl::Value { name, ty: None, init: 0 }));
        Vec::new()
    });
    let bytes = encode(&module);
    let refused = PreparedModule::from_vec(bytes).expect_err("refused");
    assert_eq!(refused.code(), "nx-ir-resource-limit");
    assert!(refused.message().contains("declarations' qualified names"), "{:.300}", refused.message());
}
