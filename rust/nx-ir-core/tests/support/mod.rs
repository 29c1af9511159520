//! Hand-built models for the reader, writer and linker tests, and helpers that find cells in an
//! encoded image (written against the format document, not the crate's reader); [`corpus`] reads
//! the conformance corpus.
#![allow(dead_code)]

pub mod corpus;
pub mod members;
pub mod process;
pub mod programs6;

use nx_ir_core::model::{
    kinds, Arm, Constant, Debug, Decl, Emit, Field, Loop, Module, ModuleEntry, Node, Prop, Ref, Type, UnionCaseDecl,
};

/// Builds a model, interning strings in first-use order.
pub struct Builder {
    pub module: Module,
}

impl Builder {
    /// A module with `identity` and `version` in slot 0, the current ABI and no features.
    pub fn new(identity: &str, version: &str) -> Builder {
        let mut builder = Builder {
            module: Module {
                schema: 5,
                strings: vec![],
                abi: 0,
                features: vec![],
                modules: vec![],
                function_entrypoints: vec![],
                component_entrypoints: vec![],
                types: vec![],
                constants: vec![],
                nodes: vec![],
                declarations: vec![],
                debug: None,
            },
        };
        builder.module.abi = builder.s(kinds::RUNTIME_ABI);
        builder.link(identity, version);
        builder
    }

    /// The index of `text`, added if new.
    pub fn s(&mut self, text: &str) -> u32 {
        let strings = &mut self.module.strings;
        match strings.iter().position(|s| s == text) {
            Some(at) => at as u32,
            None => {
                strings.push(text.to_string());
                strings.len() as u32 - 1
            }
        }
    }

    /// Appends a module-table entry and returns its slot.
    pub fn link(&mut self, identity: &str, version: &str) -> u32 {
        let entry = ModuleEntry { identity: self.s(identity), version: self.s(version), fingerprint: fnv(identity) };
        self.module.modules.push(entry);
        self.module.modules.len() as u32 - 1
    }

    pub fn feature(&mut self, name: &str) {
        let index = self.s(name);
        self.module.features.push(index);
    }

    pub fn r(&mut self, slot: u32, name: &str) -> Ref {
        Ref { slot, name: self.s(name) }
    }

    pub fn ty(&mut self, ty: Type) -> u32 {
        self.module.types.push(ty);
        self.module.types.len() as u32 - 1
    }

    pub fn primitive(&mut self, name: &str) -> u32 {
        let name = self.s(name);
        self.ty(Type::Primitive { name })
    }

    pub fn constant(&mut self, constant: Constant) -> u32 {
        self.module.constants.push(constant);
        self.module.constants.len() as u32 - 1
    }

    pub fn node(&mut self, node: Node) -> u32 {
        self.module.nodes.push(node);
        self.module.nodes.len() as u32 - 1
    }

    pub fn decl(&mut self, decl: Decl) -> u32 {
        self.module.declarations.push(decl);
        self.module.declarations.len() as u32 - 1
    }

    pub fn field(&mut self, name: &str, ty: u32, default: Option<u32>, flags: u32) -> Field {
        Field { name: self.s(name), ty, default, flags }
    }

    pub fn prop(&mut self, name: &str, value: u32) -> Prop {
        Prop { name: self.s(name), value }
    }

    /// A function declaration with no parameters, listed as a function entrypoint.
    pub fn function(&mut self, name: &str, body: u32) -> u32 {
        let name = self.s(name);
        let index = self.decl(Decl::Function { name, params: vec![], body, result: None, result_flags: 0 });
        self.module.function_entrypoints.push(index);
        index
    }

    pub fn record(&mut self, name: &str, fields: Vec<Field>) -> u32 {
        let name = self.s(name);
        self.decl(Decl::Record { name, fields, bases: vec![], is_abstract: 0, update_target: None })
    }

    pub fn build(self) -> Module {
        self.module
    }
}

/// FNV-1a-64 of an identity, a plausible fingerprint.
pub fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3))
}

/// `main.nx`: every type, constant, node and declaration kind, linking against `b.nx` version
/// "1" (declarations `Thing`, `Color`, `Card`, `Card.Tapped`), with a debug section.
pub fn sample() -> Module {
    let mut b = Builder::new("main.nx", "");
    let other = b.link("b.nx", "1");
    for feature in [
        "occurrence-v1",
        "ranges-v1",
        "function-values-v1",
        "action-handlers-v1",
        "update-intrinsics-v1",
        "function-reference-type-v1",
        "update-records-v1",
    ] {
        b.feature(feature);
    }

    let int = b.primitive("int");
    let string = b.primitive("string");
    let int_opt = b.ty(Type::Seq { item: int, occurrence: 1 });
    let thing = b.r(other, "Thing");
    b.ty(Type::Nominal(thing));
    let x = b.s("x");
    let function_type = b.ty(Type::Function {
        result: int,
        params: vec![nx_ir_core::model::TypeParam { name: x, ty: int, flags: kinds::flags::PARAM_OPTIONAL }],
    });
    b.ty(Type::AnyFunction { result: int_opt });
    let point = b.r(0, "Point");
    b.ty(Type::Nominal(point));
    b.primitive("boolean");

    let minus_five = b.constant(Constant::Int(-5));
    let one_half = b.constant(Constant::Float(1.5));
    let digits = b.s("123456789012345678901");
    b.constant(Constant::BigInt { digits });

    let n0 = b.node(Node::Number { constant: minus_five });
    let n1 = b.node(Node::Number { constant: one_half });
    let hi = b.s("hi");
    let n2 = b.node(Node::String { value: hi });
    let n3 = b.node(Node::Bool { value: 1 });
    let n4 = b.node(Node::Slot { slot: 0, name: x });
    let n5 = b.node(Node::Binary { op: 0, lhs: n0, rhs: n4 });
    let n6 = b.node(Node::Unary { op: 1, operand: n3 });
    let add = b.r(0, "add");
    let n7 = b.node(Node::Reference(add));
    let n8 = b.node(Node::Call { callee: n7, args: vec![Some(n5), None] });
    let empty = b.node(Node::Array { items: vec![] });
    let n10 =
        b.node(Node::IfIs { scrutinee: n4, arms: vec![Arm { patterns: vec![empty], body: n2 }], otherwise: Some(n2) });
    b.node(Node::If { cond: n3, then: n5, otherwise: None });
    let (item_name, index_name) = (b.s("n"), b.s("i"));
    b.node(Node::For(Loop {
        item_slot: 1,
        item_name,
        index_slot: Some(2),
        index_name: Some(index_name),
        iterable: empty,
        body: n4,
    }));
    b.node(Node::Member { base: n4, member: x });
    let px = b.prop("x", n0);
    let n14 = b.node(Node::Record { target: point, props: vec![px], content: vec![] });
    let (color, red) = (b.r(other, "Color"), b.s("red"));
    b.node(Node::UnionCase { union: color, case: red, props: vec![], content: vec![n2] });
    let (div, title) = (b.s("div"), b.prop("title", n2));
    b.node(Node::Element { id: 1, tag: div, props: vec![title], content: vec![n3] });
    let card = b.r(other, "Card");
    let card_title = b.prop("Title", n2);
    let n17 = b.node(Node::Component { target: card, props: vec![card_title], content: vec![] });
    let (tapped, action, page) = (b.s("Tapped"), b.r(other, "Card.Tapped"), b.r(0, "Page"));
    b.node(Node::ActionHandler { component: card, emit: tapped, action, binding: 3, owner: Some(page), body: n14 });
    let int_name = b.s("int");
    b.node(Node::Text { operand: n0, type_name: int_name });
    let arg = b.prop("x", n0);
    b.node(Node::NamedCall { callee: n7, args: vec![arg] });
    let range = b.node(Node::ForRange(Loop {
        item_slot: 1,
        item_name,
        index_slot: None,
        index_name: None,
        iterable: n14,
        body: n4,
    }));
    let exists = b.node(Node::Exists { operand: n4 });
    b.node(Node::OptionalMember { base: n4, member: x });
    b.node(Node::Coalesce { left: exists, right: n0 });
    b.node(Node::Intrinsic { op: 3, args: vec![n14], order: vec![x] });
    let body =
        b.node(Node::ActionHandler { component: card, emit: tapped, action, binding: 3, owner: None, body: range });
    let _ = (n1, n6, n8, n10, function_type, string);

    let param = b.field("x", int, Some(n0), kinds::flags::PARAM_OPTIONAL);
    let add_name = b.s("add");
    let add_decl =
        b.decl(Decl::Function { name: add_name, params: vec![param], body: n5, result: Some(int), result_flags: 0 });
    let answer = b.s("answer");
    b.decl(Decl::Value { name: answer, init: n0, ty: Some(int) });
    let required = b.field("x", int, None, kinds::flags::FIELD_REQUIRED);
    let point_name = b.s("Point");
    b.decl(Decl::Record {
        name: point_name,
        fields: vec![required],
        bases: vec![thing],
        is_abstract: 0,
        update_target: None,
    });
    let optional = b.field("x", int_opt, None, 0);
    let update = b.s("Point.Update");
    b.decl(Decl::Record {
        name: update,
        fields: vec![optional],
        bases: vec![],
        is_abstract: 0,
        update_target: Some(point),
    });
    let (prop, state) =
        (b.field("Title", string, None, kinds::flags::FIELD_REQUIRED), b.field("count", int, Some(n0), 0));
    let page_name = b.s("Page");
    let page_decl = b.decl(Decl::Component {
        state_record: None,
        name: page_name,
        props: vec![prop],
        state: vec![state],
        body: Some(n17),
        flags: 0,
        emits: vec![Emit { name: tapped, action }],
    });
    let (shape, dot, boxed) = (b.s("Shape"), b.s("dot"), b.s("box"));
    let side = b.field("side", int, None, kinds::flags::FIELD_REQUIRED);
    b.decl(Decl::Union {
        name: shape,
        cases: vec![
            UnionCaseDecl { name: dot, fields: vec![], is_constant: 1 },
            UnionCaseDecl { name: boxed, fields: vec![side], is_constant: 0 },
        ],
        bases: vec![],
        property_target: None,
    });
    let alias = b.s("Alias");
    b.decl(Decl::TypeAlias { name: alias });
    let main = b.s("main");
    let main_decl = b.decl(Decl::Function { name: main, params: vec![], body, result: None, result_flags: 1 });
    b.module.function_entrypoints = vec![add_decl, main_decl];
    b.module.component_entrypoints = vec![page_decl];

    let source = "let add(x?: int) = { -5 + x } // é, 😀\n".to_string();
    let mut module = b.build();
    let spans =
        |count: usize| (0..count).map(|i| if i % 3 == 2 { None } else { Some((i as u32, i as u32 + 4)) }).collect();
    module.debug = Some(Debug {
        declaration_spans: spans(module.declarations.len()),
        node_spans: spans(module.nodes.len()),
        source,
    });
    module
}

/// `b.nx` version `version`: the declarations [`sample`] references, one of them possibly
/// renamed.
pub fn dependency(version: &str, thing_name: &str) -> Module {
    let mut b = Builder::new("b.nx", version);
    let int = b.primitive("int");
    let id = b.field("id", int, None, kinds::flags::FIELD_REQUIRED);
    b.record(thing_name, vec![id]);
    let (color, red) = (b.s("Color"), b.s("red"));
    b.decl(Decl::Union {
        name: color,
        cases: vec![UnionCaseDecl { name: red, fields: vec![], is_constant: 1 }],
        bases: vec![],
        property_target: None,
    });
    let title = b.field("Title", int, None, 0);
    let card = b.s("Card");
    let tapped = b.record("Card.Tapped", vec![]);
    let action = b.r(0, "Card.Tapped");
    let emit = b.s("Tapped");
    let card_decl = b.decl(Decl::Component {
        state_record: None,
        name: card,
        props: vec![title],
        state: vec![],
        body: None,
        flags: kinds::flags::COMPONENT_EXTERNAL,
        emits: vec![Emit { name: emit, action }],
    });
    b.module.component_entrypoints.push(card_decl);
    let _ = tapped;
    b.build()
}

/// A little-endian cell of `image`.
pub fn cell(image: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(image[at..at + 4].try_into().unwrap())
}

pub fn set_cell(image: &mut [u8], at: usize, value: u32) {
    image[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// `(offset, length)` of the section of `kind`, from the directory.
pub fn section(image: &[u8], kind: u32) -> (usize, usize) {
    let count = cell(image, 12) as usize;
    (0..count)
        .map(|entry| 16 + 12 * entry)
        .find(|at| cell(image, *at) == kind)
        .map(|at| (cell(image, at + 4) as usize, cell(image, at + 8) as usize))
        .expect("section present")
}

/// The byte offset of cell `at` of entry `index` of the cell table in section `kind`.
pub fn entry_cell(image: &[u8], kind: u32, index: usize, at: usize) -> usize {
    let (offset, _) = section(image, kind);
    let count = cell(image, offset) as usize;
    let pool = offset + 4 * (count + 2);
    let start = cell(image, offset + 4 * (1 + index)) as usize;
    pool + 4 * (start + at)
}

/// The byte offset of cell `at` of the module section.
pub fn module_cell(image: &[u8], at: usize) -> usize {
    section(image, kinds::section::MODULE).0 + 4 * at
}
