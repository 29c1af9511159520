//! The reader and the writer: the prelude's reference bytes, round trips, and the validation
//! cases of conformance section B and format §3.3.

mod support;

use nx_ir_core::codes;
use nx_ir_core::image::{LinkEntry, PreparedModule};
use nx_ir_core::model::{kinds, kinds::section, Constant, Decl, Module, Node, Type, NONE};
use nx_ir_core::prelude::prelude_model;
use nx_ir_core::writer::encode;
use nx_ir_core::IrError;
use sha2::{Digest, Sha256};
use support::*;

fn refuse(bytes: &[u8]) -> IrError {
    PreparedModule::from_slice(bytes).expect_err("the image should be refused")
}

fn refuse_model(module: &Module) -> IrError {
    refuse(&encode(module))
}

/// Refused as malformed, with a message containing `needle`.
fn assert_malformed(error: &IrError, needle: &str) {
    assert_eq!(error.code(), codes::MALFORMED, "{error}");
    assert!(error.message().starts_with("NX IR image is malformed: "), "{error}");
    assert!(error.message().contains(needle), "{error:?} should mention {needle:?}");
}

// ------------------------------------------------------------------------------------------------
// The prelude (§1.8)
// ------------------------------------------------------------------------------------------------

#[test]
fn the_prelude_encodes_to_the_reference_image() {
    let image = encode(&prelude_model(5).expect("the prelude assembles"));
    assert_eq!(image.len(), 604);
    assert_eq!(
        format!("{:x}", Sha256::digest(&image)),
        "4d9bb57822e960bff2be8ecd34cb08dbd4f81104be4fa2cd8ded4b990ead2369"
    );
    assert_eq!(&image[..4], b"NXIR");
    assert_eq!([cell(&image, 4), cell(&image, 8), cell(&image, 12)], [5, 604, 6]);
    let directory: Vec<[u32; 3]> =
        (0..6).map(|i| [cell(&image, 16 + 12 * i), cell(&image, 20 + 12 * i), cell(&image, 24 + 12 * i)]).collect();
    assert_eq!(directory, [[0, 88, 192], [1, 280, 44], [2, 324, 32], [3, 356, 8], [4, 364, 8], [5, 372, 232]]);
    let offsets: Vec<u32> = (0..14).map(|i| cell(&image, 92 + 4 * i)).collect();
    assert_eq!(offsets, [0, 5, 10, 16, 19, 31, 38, 50, 64, 78, 79, 95, 112, 130]);
    let module: Vec<u32> = (0..11).map(|i| cell(&image, 280 + 4 * i)).collect();
    assert_eq!(module, [10, 2, 11, 12, 1, 8, 9, 0x4AFB_3EF4, 0xE3FF_AADC, 0, 0]);
    let declaration_offsets: Vec<u32> = (0..4).map(|i| cell(&image, 376 + 4 * i)).collect();
    assert_eq!(declaration_offsets, [0, 19, 38, 53]);
    let first: Vec<u32> = (0..19).map(|i| cell(&image, 392 + 4 * i)).collect();
    assert_eq!(first, [2, 0, 3, 1, 0, NONE, 2, 3, 0, NONE, 2, 4, 1, NONE, 2, 0, 0, NONE, NONE]);
}

#[test]
fn the_prelude_reads_back() {
    let model = prelude_model(5).expect("the prelude assembles");
    let module = PreparedModule::from_vec(encode(&model)).unwrap();
    assert_eq!(module.to_model(), model);
    assert_eq!(module.identity(), "@nx/prelude.nx");
    assert_eq!(module.version(), "1");
    assert_eq!(module.fingerprint(), 16429037828798365428);
    assert_eq!(module.abi(), "nx-ir-runtime-v2");
    assert_eq!(module.required_features(), ["update-records-v1", "property-unions-v1"]);
    assert!(module.links().is_empty());
    assert!(module.function_entrypoints().is_empty() && module.component_entrypoints().is_empty());
    assert_eq!(module.string_count(), 13);
    assert_eq!(module.string(8), Some("@nx/prelude.nx"));
    assert_eq!(module.string(13), None);
    assert_eq!((module.type_count(), module.constant_count(), module.node_count()), (2, 0, 0));
    assert_eq!(module.declaration_count(), 3);
    assert_eq!(module.declaration_index("Range"), Some(0));
    assert_eq!(module.declaration_index("Range.Property"), Some(2));
    assert_eq!(module.declaration_index("Range.Up"), None);
    assert_eq!(module.declaration_name(1), Some("Range.Update"));
    assert_eq!(module.referenced_names(0).collect::<Vec<_>>(), ["Range"]);
    assert!(!module.has_debug_info() && module.source().is_none() && module.declaration_span(0).is_none());
}

// ------------------------------------------------------------------------------------------------
// Round trips and accessors
// ------------------------------------------------------------------------------------------------

#[test]
fn every_kind_round_trips() {
    let model = sample();
    let image = encode(&model);
    let module = PreparedModule::from_slice(&image).unwrap();
    assert_eq!(module.to_model(), model);
    assert_eq!(encode(&module.to_model()), image);
    for (index, node) in model.nodes.iter().enumerate() {
        assert_eq!(module.decode_node(index as u32).as_ref(), Some(node));
    }
    for (index, decl) in model.declarations.iter().enumerate() {
        assert_eq!(module.decode_declaration(index as u32).as_ref(), Some(decl));
    }
    assert_eq!(module.decode_type(4), Some(model.types[4].clone()));
    assert_eq!(module.decode_constant(0), Some(Constant::Int(-5)));
    assert_eq!(module.decode_node(model.nodes.len() as u32), None);

    let mut stripped = model.clone();
    stripped.debug = None;
    let module = PreparedModule::from_vec(encode(&stripped)).unwrap();
    assert_eq!(module.to_model(), stripped);
}

#[test]
fn accessors_read_in_place() {
    let model = sample();
    let module = PreparedModule::from_vec(encode(&model)).unwrap();
    assert_eq!(module.identity(), "main.nx");
    assert_eq!(module.version(), "");
    assert_eq!(module.fingerprint(), fnv("main.nx"));
    assert_eq!(module.links(), [LinkEntry { identity: "b.nx", version: "1", fingerprint: fnv("b.nx") }]);
    assert_eq!(module.module_table().len(), 2);
    assert_eq!(module.function_entrypoints(), ["add", "main"]);
    assert_eq!(module.component_entrypoints(), ["Page"]);
    assert_eq!(module.referenced_names(1).collect::<Vec<_>>(), ["Card", "Card.Tapped", "Color", "Thing"]);
    assert_eq!(module.referenced_names(0).collect::<Vec<_>>(), ["Page", "Point", "add"]);
    assert_eq!(module.referenced_names(2).count(), 0);
    assert_eq!(module.declaration_index("Point.Update"), Some(3));
    assert_eq!(module.declaration_kind(4), Some(kinds::declaration::COMPONENT));
    assert!(module.has_debug_info());
    assert_eq!(module.source(), Some("let add(x?: int) = { -5 + x } // é, 😀\n"));
    assert_eq!(module.node_span(1), Some((1, 5)));
    assert_eq!(module.node_span(2), None);
    assert_eq!(module.declaration_span(0), Some((0, 4)));
    assert_eq!(module.node_span(1000), None);
    let debug = format!("{module:?}");
    assert!(debug.contains("main.nx") && !debug.contains("NXIR"), "{debug}");
}

#[test]
fn a_prepared_module_is_shareable() {
    fn shareable<T: Send + Sync>() {}
    shareable::<PreparedModule>();
    shareable::<nx_ir_core::link::Program>();
}

// ------------------------------------------------------------------------------------------------
// Header and directory (B3-B7, B12, B13, §1.3)
// ------------------------------------------------------------------------------------------------

#[test]
fn what_is_not_an_image_is_refused_as_such() {
    for bytes in [&b""[..], b"{\"format\":\"nx-ir-json\"}", b"NXI", b"not an image", b"nope"] {
        let error = refuse(bytes);
        assert_eq!(error.code(), codes::FORMAT);
        assert_eq!(error.message(), "The input is not an NX IR image.");
    }
}

#[test]
fn a_header_cut_short_is_malformed() {
    let image = encode(&prelude_model(5).expect("the prelude assembles"));
    for len in [4, 8, 12, 15] {
        let error = refuse(&image[..len]);
        assert_eq!(error.code(), codes::MALFORMED);
        assert_eq!(error.message(), "NX IR image is malformed: the header is cut short.");
    }
}

#[test]
fn another_schema_version_is_refused_naming_both() {
    let mut image = encode(&prelude_model(5).expect("the prelude assembles"));
    set_cell(&mut image, 4, 3);
    let error = refuse(&image);
    assert_eq!(error.code(), codes::SCHEMA_VERSION);
    assert_eq!(error.message(), "NX IR schema version 3 is not supported; this runtime reads schema versions 5 and 6.");
    set_cell(&mut image, 4, 99);
    // Nothing after the header is read: a broken directory does not matter.
    set_cell(&mut image, 12, 0xFFFF_FFFF);
    let error = refuse(&image);
    assert_eq!(error.code(), codes::SCHEMA_VERSION);
    assert!(error.message().contains("99"));
}

#[test]
fn the_total_length_must_be_the_buffer_length() {
    let image = encode(&prelude_model(5).expect("the prelude assembles"));
    let mut longer = image.clone();
    set_cell(&mut longer, 8, 608);
    assert_malformed(&refuse(&longer), "608");
    let mut shorter = image.clone();
    set_cell(&mut shorter, 8, 600);
    assert_malformed(&refuse(&shorter), "600");
    let mut appended = image.clone();
    appended.extend([0; 4]);
    assert_malformed(&refuse(&appended), "608");
    assert_malformed(&refuse(&image[..600]), "604");
}

#[test]
fn an_unknown_section_is_skipped() {
    let model = sample();
    let image = encode(&model);
    let count = cell(&image, 12) as usize;
    let directory_end = 16 + 12 * count;
    // Insert a directory entry for kind 99 over 4 zero bytes appended at the end.
    let mut grown = image[..directory_end].to_vec();
    grown.extend([99u32, (image.len() + 12) as u32, 4].iter().flat_map(|c| c.to_le_bytes()));
    grown.extend(&image[directory_end..]);
    grown.extend([0; 4]);
    let total = grown.len() as u32;
    set_cell(&mut grown, 8, total);
    set_cell(&mut grown, 12, count as u32 + 1);
    for entry in 0..count {
        let at = 16 + 12 * entry + 4;
        let offset = cell(&grown, at);
        set_cell(&mut grown, at, offset + 12);
    }
    let module = PreparedModule::from_vec(grown).unwrap();
    assert_eq!(module.to_model(), model);
}

#[test]
fn directory_entries_are_checked() {
    let image = encode(&prelude_model(5).expect("the prelude assembles"));
    let with = |at: usize, value: u32| {
        let mut damaged = image.clone();
        set_cell(&mut damaged, at, value);
        refuse(&damaged)
    };
    assert_malformed(&with(12, 100), "the directory of 100 entries does not fit");
    assert_malformed(&with(20, 90), "section 0 is not aligned");
    assert_malformed(&with(24, 190), "section 0 is not aligned");
    assert_malformed(&with(24, 1000), "section 0 lies outside the image");
    assert_malformed(&with(20, 80), "section 0 overlaps");
    assert_malformed(&with(28, 0), "section 0 is listed twice");
    assert_malformed(&with(28, 6), "section 1 is missing");
    // A skipped kind is still checked for alignment and bounds.
    assert_malformed(&with(28, 7), "section 1 is missing");
    assert_malformed(&with(28, 77), "section 1 is missing");
    let mut damaged = image.clone();
    set_cell(&mut damaged, 28, 77);
    set_cell(&mut damaged, 32, 2);
    assert_malformed(&refuse(&damaged), "section 77 is not aligned");
}

// ------------------------------------------------------------------------------------------------
// Offset-array tables and the module section (§1.4, §1.5)
// ------------------------------------------------------------------------------------------------

#[test]
fn the_string_table_is_checked() {
    let mut b = Builder::new("é.nx", "");
    b.s("naïve");
    let image = encode(&b.build());
    let (strings, _) = section(&image, section::STRINGS);
    let with = |at: usize, value: u32| {
        let mut damaged = image.clone();
        set_cell(&mut damaged, at, value);
        refuse(&damaged)
    };
    // Strings: the ABI (16 bytes), "é.nx" (5), "" and "naïve" (6).
    assert_eq!(cell(&image, strings), 4);
    assert_malformed(&with(strings + 8, 17), "string offset 17 falls inside a character");
    assert_malformed(&with(strings + 12, 10), "the string offsets decrease");
    assert_malformed(&with(strings + 4, 1), "the string offsets do not start at zero");
    assert_malformed(&with(strings, 40), "the string offsets do not fit their section");
    assert_malformed(&with(strings + 20, 31), "the string blob is 31 bytes");
    let mut invalid = image.clone();
    let blob = strings + 24;
    invalid[blob + 16] = 0xC3;
    invalid[blob + 17] = 0x28;
    assert_malformed(&refuse(&invalid), "not UTF-8");
}

#[test]
fn cell_tables_are_checked() {
    let image = encode(&sample());
    let (nodes, _) = section(&image, section::NODES);
    let count = cell(&image, nodes) as usize;
    let with = |at: usize, value: u32| {
        let mut damaged = image.clone();
        set_cell(&mut damaged, at, value);
        refuse(&damaged)
    };
    assert_malformed(&with(nodes + 4 * (count + 1), 10_000), "the node pool holds");
    assert_malformed(&with(nodes + 4, 1), "the node offsets do not start at zero");
    assert_malformed(&with(nodes + 12, 0), "the node offsets decrease");
    assert_malformed(&with(nodes + 8, 0), "node 0: the entry ends before its layout does");
    assert_malformed(&with(nodes, 0x7FFF_FFF0), "the node offsets do not fit their section");
}

#[test]
fn the_module_section_is_checked() {
    let image = encode(&prelude_model(5).expect("the prelude assembles"));
    let with = |cell_index: usize, value: u32| {
        let mut damaged = image.clone();
        set_cell(&mut damaged, module_cell(&image, cell_index), value);
        refuse(&damaged)
    };
    // [abi, 2, f, f, 1, identity, version, lo, hi, 0, 0]
    assert_malformed(&with(0, 13), "runtime ABI string index 13 is out of range");
    assert_malformed(&with(2, 99), "required feature string index 99");
    assert_malformed(&with(1, 50), "the required feature list of 50 entries does not fit");
    assert_malformed(&with(4, 0), "the module table is empty");
    assert_malformed(&with(4, 2), "the module table of 2 entries does not fit");
    assert_malformed(&with(6, NONE), "module version string index");
    assert_malformed(&with(10, 1), "the component entrypoint list of 1 entries does not fit");

    let mut model = prelude_model(5).expect("the prelude assembles");
    model.function_entrypoints = vec![3];
    assert_malformed(&refuse_model(&model), "function entrypoint declaration index 3 is out of range");

    // One cell too many: the module section grows by 4 bytes, later sections shift.
    let mut grown = image[..324].to_vec();
    grown.extend([0; 4]);
    grown.extend(&image[324..]);
    set_cell(&mut grown, 8, 608);
    set_cell(&mut grown, 16 + 12 + 8, 48);
    for entry in 2..6 {
        let at = 16 + 12 * entry + 4;
        let offset = cell(&grown, at);
        set_cell(&mut grown, at, offset + 4);
    }
    assert_malformed(&refuse(&grown), "the module section has cells after the entrypoints");
}

// ------------------------------------------------------------------------------------------------
// Entries (B14-B19, §2, §3.3)
// ------------------------------------------------------------------------------------------------

#[test]
fn seq_types_are_checked() {
    for (occurrence, needle) in
        [(0, "occurrence cell 0"), (4, "occurrence cell 4"), (NONE, "occurrence cell 4294967295")]
    {
        let mut model = sample();
        model.types.push(Type::Seq { item: 0, occurrence });
        assert_malformed(&refuse_model(&model), &format!("type 8: {needle}"));
    }
    let mut model = sample();
    model.types.push(Type::Seq { item: 2, occurrence: 3 });
    assert_malformed(&refuse_model(&model), "type 8: item type 2 is itself a seq type");
    for occurrence in 1..=3 {
        let mut model = sample();
        model.types.push(Type::Seq { item: 0, occurrence });
        PreparedModule::from_vec(encode(&model)).unwrap();
    }
}

#[test]
fn types_name_only_earlier_types() {
    let mut model = sample();
    model.types[2] = Type::Seq { item: 2, occurrence: 1 };
    assert_malformed(&refuse_model(&model), "type 2: type index 2 is out of range");
    let mut model = sample();
    model.types[5] = Type::AnyFunction { result: 7 };
    assert_malformed(&refuse_model(&model), "type 5: type index 7 is out of range");
    let mut model = sample();
    model.types[4] =
        Type::Function { result: 0, params: vec![nx_ir_core::model::TypeParam { name: 0, ty: 99, flags: 0 }] };
    assert_malformed(&refuse_model(&model), "type 4: type index 99 is out of range");
}

#[test]
fn nodes_name_only_earlier_nodes() {
    // Node 17 is a component descriptor with one prop, `Title = node 2`.
    let mut model = sample();
    let Node::Component { props, .. } = &mut model.nodes[17] else { panic!("node 17 is a component") };
    props[0].value = 17;
    assert_malformed(&refuse_model(&model), "node 17: node index 17 is out of range");
    let Node::Component { props, .. } = &mut model.nodes[17] else { unreachable!() };
    props[0].value = 18;
    assert_malformed(&refuse_model(&model), "node 17: node index 18 is out of range");

    let mut model = sample();
    model.nodes[2] = Node::String { value: model.strings.len() as u32 };
    assert_malformed(&refuse_model(&model), "node 2: string index");
}

#[test]
fn operands_are_bounded() {
    type Damage = fn(&mut Module);
    let cases: [(Damage, &str); 9] = [
        (|m| m.nodes[0] = Node::Number { constant: 3 }, "node 0: constant index 3 is out of range (the table has 3)"),
        (
            |m| m.nodes[7] = Node::Reference(nx_ir_core::model::Ref { slot: 2, name: 0 }),
            "node 7: module slot 2 is out of range",
        ),
        (|m| m.nodes[5] = Node::Binary { op: 20, lhs: 0, rhs: 4 }, "node 5: binary operator code 20"),
        (|m| m.nodes[6] = Node::Unary { op: 2, operand: 3 }, "node 6: unary operator code 2"),
        (|m| m.nodes[25] = Node::Intrinsic { op: 4, args: vec![], order: vec![] }, "node 25: intrinsic code 4"),
        (|m| m.types[0] = Type::Primitive { name: 1000 }, "type 0: string index 1000"),
        (|m| m.constants[2] = Constant::BigInt { digits: NONE }, "constant 2: string index 4294967295"),
        (
            |m| {
                let Decl::Function { result, .. } = &mut m.declarations[0] else { unreachable!() };
                *result = Some(8);
            },
            "declaration 0: type index 8 is out of range (the table has 8)",
        ),
        (
            |m| {
                let Decl::Component { body, .. } = &mut m.declarations[4] else { unreachable!() };
                *body = Some(27);
            },
            "declaration 4: node index 27 is out of range (the table has 27)",
        ),
    ];
    for (damage, needle) in cases {
        let mut model = sample();
        damage(&mut model);
        assert_malformed(&refuse_model(&model), needle);
    }
}

#[test]
fn absent_optionals_are_accepted() {
    let mut model = sample();
    // The action handler's owner is an absent `ref?`: only its slot cell is read.
    let image = encode(&model);
    // [19, component (2), emit, action (2), binding, owner (2), body]
    let owner_name = entry_cell(&image, section::NODES, 26, 8);
    assert_eq!(cell(&image, owner_name - 4), NONE);
    let mut damaged = image.clone();
    set_cell(&mut damaged, owner_name, 12345);
    let module = PreparedModule::from_vec(damaged).unwrap();
    assert_eq!(module.to_model(), model);
    // Index cells of `for` and a value's type are optional.
    model.declarations[1] = Decl::Value { name: 0, init: 0, ty: None };
    PreparedModule::from_vec(encode(&model)).unwrap();
}

#[test]
fn an_entry_must_end_where_its_layout_does() {
    let image = encode(&sample());
    // Node 5 is `binary` (4 cells) and node 6 `unary` (3 cells).
    let mut damaged = image.clone();
    set_cell(&mut damaged, entry_cell(&image, section::NODES, 5, 0), kinds::node::UNARY);
    assert_malformed(&refuse(&damaged), "node 5: the entry has 1 cell(s) more than its layout");
    let mut damaged = image.clone();
    set_cell(&mut damaged, entry_cell(&image, section::NODES, 6, 0), kinds::node::BINARY);
    assert_malformed(&refuse(&damaged), "node 6: the entry ends before its layout does");
    // A list count larger than what is left of the entry.
    let mut damaged = image.clone();
    set_cell(&mut damaged, entry_cell(&image, section::NODES, 8, 2), 0x7FFF_FFF0);
    assert_malformed(&refuse(&damaged), "node 8: a list of 2147483632 element(s) does not fit in the entry");
}

#[test]
fn unassigned_and_retired_kinds_are_malformed() {
    let image = encode(&sample());
    let cases = [
        (section::TYPES, 0, kinds::ty::ARRAY, "type 0: kind 2 was retired with schema 5"),
        (section::TYPES, 0, kinds::ty::NULLABLE, "type 0: kind 3 was retired with schema 5"),
        (section::TYPES, 0, 7, "type 0: kind 7 is not one the schema assigns"),
        (section::NODES, 2, kinds::node::NULL, "node 2: kind 0 was retired with schema 5"),
        (section::NODES, 2, 26, "node 2: kind 26 is not one the schema assigns"),
        (section::CONSTANTS, 0, 3, "constant 0: kind 3 is not one the schema assigns"),
        (section::DECLARATIONS, 6, 6, "declaration 6: kind 6 is not one the schema assigns"),
    ];
    for (kind, index, value, needle) in cases {
        let mut damaged = image.clone();
        set_cell(&mut damaged, entry_cell(&image, kind, index, 0), value);
        assert_malformed(&refuse(&damaged), needle);
    }
}

#[test]
fn a_text_node_names_a_type_with_a_text_form() {
    for name in ["int", "int32", "int64", "float32", "float64", "boolean"] {
        let mut b = Builder::new("t.nx", "");
        let zero = b.constant(Constant::Int(0));
        let operand = b.node(Node::Number { constant: zero });
        let type_name = b.s(name);
        let text = b.node(Node::Text { operand, type_name });
        b.function("f", text);
        PreparedModule::from_vec(encode(&b.build())).unwrap();
    }
    let mut model = sample();
    model.nodes[19] =
        Node::Text { operand: 0, type_name: model.strings.iter().position(|s| s == "string").unwrap() as u32 };
    assert_malformed(&refuse_model(&model), "node 19: 'string' is not a type with a text form");
}

#[test]
fn presence_operators_need_the_occurrence_feature() {
    let build = |kind: u32, list_feature: bool| {
        let mut b = Builder::new("o.nx", "");
        if list_feature {
            b.feature("occurrence-v1");
        }
        let x = b.s("x");
        let slot = b.node(Node::Slot { slot: 0, name: x });
        let node = match kind {
            kinds::node::EXISTS => Node::Exists { operand: slot },
            kinds::node::OPTIONAL_MEMBER => Node::OptionalMember { base: slot, member: x },
            kinds::node::COALESCE => Node::Coalesce { left: slot, right: slot },
            _ => {
                let pattern = b.node(Node::Array { items: vec![] });
                Node::IfIs {
                    scrutinee: slot,
                    arms: vec![nx_ir_core::model::Arm { patterns: vec![pattern], body: slot }],
                    otherwise: None,
                }
            }
        };
        let body = b.node(node);
        b.function("f", body);
        encode(&b.build())
    };
    for (kind, node, what) in [
        (kinds::node::EXISTS, 1, "an 'exists' node"),
        (kinds::node::OPTIONAL_MEMBER, 1, "an 'optionalMember' node"),
        (kinds::node::COALESCE, 1, "a 'coalesce' node"),
        (kinds::node::IF_IS, 2, "matches the '{}' pattern"),
    ] {
        PreparedModule::from_vec(build(kind, true)).unwrap();
        let error = refuse(&build(kind, false));
        assert_malformed(&error, &format!("node {node} "));
        assert_malformed(&error, what);
        assert_malformed(&error, "which requires the feature 'occurrence-v1' the module does not list");
    }
    // An `array` node with items is not the `{}` pattern, and a seq type needs no feature.
    let mut b = Builder::new("o.nx", "");
    let x = b.s("x");
    let slot = b.node(Node::Slot { slot: 0, name: x });
    let pattern = b.node(Node::Array { items: vec![slot] });
    let arms = vec![nx_ir_core::model::Arm { patterns: vec![pattern], body: slot }];
    let body = b.node(Node::IfIs { scrutinee: slot, arms, otherwise: None });
    b.function("f", body);
    let int = b.primitive("int");
    b.ty(Type::Seq { item: int, occurrence: 1 });
    PreparedModule::from_vec(encode(&b.build())).unwrap();
}

/// The nodes' rules are checked after the runtime ABI and the features, as nx-ir-runtime 0.7.0
/// checks them, and every node that breaks one is reported, together with the module-level
/// findings after them.
#[test]
fn node_findings_follow_the_runtime_checks_and_are_all_reported() {
    let presence = |feature: Option<&str>| {
        let mut b = Builder::new("o.nx", "");
        if let Some(feature) = feature {
            b.feature(feature);
        }
        let x = b.s("x");
        let slot = b.node(Node::Slot { slot: 0, name: x });
        let body = b.node(Node::Exists { operand: slot });
        b.function("f", body);
        b.build()
    };
    // An unknown feature in the place of `occurrence-v1`: the feature is what is reported.
    let codes_of = |error: &IrError| error.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
    assert_eq!(codes_of(&refuse_model(&presence(Some("occurrence-v9")))), [codes::REQUIRED_FEATURE]);
    // An ABI this runtime does not implement, and the feature missing: the ABI.
    let mut model = presence(None);
    model.strings[model.abi as usize] = "nx-ir-runtime-v9".to_string();
    assert_eq!(codes_of(&refuse_model(&model)), [codes::RUNTIME_ABI]);

    // Two `text` nodes naming `string`, and a declaration made twice: three findings, in order.
    let mut b = Builder::new("t.nx", "");
    let zero = b.constant(Constant::Int(0));
    let operand = b.node(Node::Number { constant: zero });
    let string = b.s("string");
    let first = b.node(Node::Text { operand, type_name: string });
    let second = b.node(Node::Text { operand, type_name: string });
    b.function("f", first);
    b.function("f", second);
    let error = refuse_model(&b.build());
    assert_eq!(codes_of(&error), [codes::MALFORMED, codes::MALFORMED, codes::DUPLICATE_DECLARATION]);
    assert!(error.diagnostics[0].message.contains("node 1: 'string'"), "{error:?}");
    assert!(error.diagnostics[1].message.contains("node 2: 'string'"), "{error:?}");
}

// ------------------------------------------------------------------------------------------------
// Debug section (§1.7)
// ------------------------------------------------------------------------------------------------

#[test]
fn the_debug_section_is_checked() {
    let model = sample();
    let mut fewer = model.clone();
    fewer.debug.as_mut().unwrap().node_spans.pop();
    assert_malformed(&refuse_model(&fewer), "the debug section has 26 node spans for 27 nodes");
    let mut fewer = model.clone();
    fewer.debug.as_mut().unwrap().declaration_spans.push(None);
    assert_malformed(&refuse_model(&fewer), "the debug section has 9 declaration spans for 8 declarations");

    let image = encode(&model);
    let (debug, len) = section(&image, section::DEBUG);
    // Declaration count and 8 spans, node count and 27 spans, then the source length.
    let source_len = debug + 4 * (1 + 2 * 8 + 1 + 2 * 27);
    assert!(source_len < debug + len);
    let source = model.debug.as_ref().unwrap().source.len() as u32;
    assert_eq!(cell(&image, source_len), source);
    let mut damaged = image.clone();
    set_cell(&mut damaged, source_len, source + 4);
    assert_malformed(&refuse(&damaged), &format!("the source is {} bytes", source + 4));
    // The source holds "é" at bytes 34-35 (of "// é"); break it.
    let mut damaged = image.clone();
    damaged[source_len + 4 + 36] = 0xA9;
    assert_malformed(&refuse(&damaged), "the source is not UTF-8");
}

// ------------------------------------------------------------------------------------------------
// Runtime ABI and features (B8-B10, §1.6)
// ------------------------------------------------------------------------------------------------

#[test]
fn the_runtime_abi_and_features_are_reported_together() {
    let mut model = sample();
    model.strings[model.abi as usize] = "nx-ir-runtime-v9".to_string();
    let error = refuse_model(&model);
    assert_eq!(error.code(), codes::RUNTIME_ABI);
    assert_eq!(
        error.message(),
        "NX IR runtime ABI 'nx-ir-runtime-v9' is not supported; this runtime implements 'nx-ir-runtime-v2'."
    );

    for feature in ["time-travel-v1", "function-reference-type-v9"] {
        model.strings.push(feature.to_string());
        model.features.push(model.strings.len() as u32 - 1);
    }
    let error = refuse_model(&model);
    let found: Vec<(&str, &str)> = error.diagnostics.iter().map(|d| (d.code, d.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (codes::RUNTIME_ABI, error.diagnostics[0].message.as_str()),
            (codes::REQUIRED_FEATURE, "Unsupported NX IR required feature 'time-travel-v1'."),
            (codes::REQUIRED_FEATURE, "Unsupported NX IR required feature 'function-reference-type-v9'."),
        ]
    );
}

#[test]
fn every_known_feature_is_accepted() {
    let mut b = Builder::new("f.nx", "");
    for feature in kinds::KNOWN_FEATURES {
        b.feature(feature);
    }
    PreparedModule::from_vec(encode(&b.build())).unwrap();
}

// ------------------------------------------------------------------------------------------------
// Module-level rules (§2.5, §3.3 step 5)
// ------------------------------------------------------------------------------------------------

#[test]
fn duplicates_self_references_and_entrypoints_are_reported_together() {
    let mut model = sample();
    let add = model.declarations[0].clone();
    model.declarations.push(add);
    if let Some(debug) = &mut model.debug {
        debug.declaration_spans.push(None);
    }
    // `Page`, the owner of node 18, renamed: the self reference names nothing.
    let Decl::Component { name, .. } = &mut model.declarations[4] else { unreachable!() };
    model.strings.push("Screen".to_string());
    *name = model.strings.len() as u32 - 1;
    model.function_entrypoints.push(2);
    model.component_entrypoints.push(8);
    let error = refuse_model(&model);
    let found: Vec<(&str, &str)> = error.diagnostics.iter().map(|d| (d.code, d.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (codes::DUPLICATE_DECLARATION, "Module 'main.nx' declares 'add' twice."),
            (codes::REFERENCE, "Module 'main.nx' references its own declaration 'Page', which it does not declare."),
            (codes::ENTRYPOINT, "function entrypoint 2 is invalid."),
            (codes::ENTRYPOINT, "component entrypoint 8 is invalid."),
        ]
    );
}

#[test]
fn a_declaration_declared_three_times_is_reported_twice() {
    let mut b = Builder::new("d.nx", "");
    for _ in 0..3 {
        b.record("Twice", vec![]);
    }
    let error = refuse_model(&b.build());
    assert_eq!(error.diagnostics.len(), 2);
    assert!(error.diagnostics.iter().all(|d| d.code == codes::DUPLICATE_DECLARATION));
}

#[test]
fn self_references_from_types_and_declarations_count() {
    let mut b = Builder::new("s.nx", "");
    let missing = b.r(0, "Missing");
    b.ty(Type::Nominal(missing));
    let target = b.r(0, "Gone");
    let name = b.s("R.Update");
    b.decl(Decl::Record { name, fields: vec![], bases: vec![], is_abstract: 0, update_target: Some(target) });
    let error = refuse_model(&b.build());
    let names: Vec<&str> = error.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        names,
        [
            "Module 's.nx' references its own declaration 'Gone', which it does not declare.",
            "Module 's.nx' references its own declaration 'Missing', which it does not declare.",
        ]
    );
}
