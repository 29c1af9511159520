//! Encodes a [`Module`] as an image of its schema (`module.schema`, 5 or 6), the exact inverse
//! of the reader's decoding.
//!
//! Sections are written in kind order (strings, module, types, constants, nodes, declarations,
//! then debug when present), packed right after the directory, as the reference emitter does.
//! The writer does not validate: it writes whatever indices the model holds, so a model that
//! breaks a rule yields an image the reader refuses (which is how tests build damaged images):
//! schema 6 kinds in a schema 5 model are written with their kind numbers, and a component's
//! state record is written in a schema 5 model when it holds one.

use crate::model::{
    kinds::{self, section},
    Constant, Decl, Field, Loop, Module, Node, Prop, Ref, Span, Type, NONE,
};

/// The image of `module`.
///
/// Lengths and counts are written as `u32` cells; a model too large for that (over 4 GiB) is
/// outside what the format can express.
pub fn encode(module: &Module) -> Vec<u8> {
    let mut sections: Vec<(u32, Vec<u8>)> = vec![
        (section::STRINGS, strings_section(&module.strings)),
        (section::MODULE, to_bytes(&module_section(module))),
        (section::TYPES, table(&module.types, write_type)),
        (section::CONSTANTS, table(&module.constants, write_constant)),
        (section::NODES, table(&module.nodes, write_node)),
        (section::DECLARATIONS, declarations_section(module)),
    ];
    if let Some(debug) = &module.debug {
        sections.push((section::DEBUG, debug_section(debug)));
    }

    let directory_end = 16 + 12 * sections.len();
    let total = directory_end + sections.iter().map(|(_, bytes)| bytes.len()).sum::<usize>();
    let mut image = Vec::with_capacity(total);
    image.extend_from_slice(kinds::MAGIC);
    for header in [module.schema, total as u32, sections.len() as u32] {
        image.extend_from_slice(&header.to_le_bytes());
    }
    let mut offset = directory_end;
    for (kind, bytes) in &sections {
        for cell in [*kind, offset as u32, bytes.len() as u32] {
            image.extend_from_slice(&cell.to_le_bytes());
        }
        offset += bytes.len();
    }
    for (_, bytes) in sections {
        image.extend_from_slice(&bytes);
    }
    image
}

fn to_bytes(cells: &[u32]) -> Vec<u8> {
    cells.iter().flat_map(|cell| cell.to_le_bytes()).collect()
}

fn pad(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(4), 0);
}

/// Count, `count + 1` byte offsets, then the blob zero-padded to four bytes.
fn strings_section(strings: &[String]) -> Vec<u8> {
    let mut cells = Vec::with_capacity(strings.len() + 2);
    cells.push(strings.len() as u32);
    cells.push(0);
    let mut end = 0usize;
    for string in strings {
        end += string.len();
        cells.push(end as u32);
    }
    let mut bytes = to_bytes(&cells);
    for string in strings {
        bytes.extend_from_slice(string.as_bytes());
    }
    pad(&mut bytes);
    bytes
}

fn module_section(module: &Module) -> Vec<u32> {
    let mut cells = vec![module.abi];
    let list = |cells: &mut Vec<u32>, items: &[u32]| {
        cells.push(items.len() as u32);
        cells.extend_from_slice(items);
    };
    list(&mut cells, &module.features);
    cells.push(module.modules.len() as u32);
    for entry in &module.modules {
        cells.extend([entry.identity, entry.version, entry.fingerprint as u32, (entry.fingerprint >> 32) as u32]);
    }
    list(&mut cells, &module.function_entrypoints);
    list(&mut cells, &module.component_entrypoints);
    cells
}

/// The declarations table: schema 6 ends a component with its state record reference.
fn declarations_section(module: &Module) -> Vec<u8> {
    if module.schema >= kinds::SCHEMA_6 {
        table(&module.declarations, |cells, declaration| write_declaration(cells, declaration, true))
    } else {
        table(&module.declarations, |cells, declaration| write_declaration(cells, declaration, false))
    }
}

/// Count, `count + 1` cell offsets, then the pool.
fn table<T>(entries: &[T], write: impl Fn(&mut Cells, &T)) -> Vec<u8> {
    let mut pool = Cells(Vec::new());
    let mut head = Vec::with_capacity(entries.len() + 2);
    head.push(entries.len() as u32);
    head.push(0);
    for entry in entries {
        write(&mut pool, entry);
        head.push(pool.0.len() as u32);
    }
    head.extend_from_slice(&pool.0);
    to_bytes(&head)
}

/// One table's pool, written operand by operand.
struct Cells(Vec<u32>);

impl Cells {
    fn push(&mut self, cell: u32) {
        self.0.push(cell);
    }

    fn optional(&mut self, cell: Option<u32>) {
        self.push(cell.unwrap_or(NONE));
    }

    fn reference(&mut self, reference: Ref) {
        self.push(reference.slot);
        self.push(reference.name);
    }

    fn optional_reference(&mut self, reference: Option<Ref>) {
        self.reference(reference.unwrap_or(Ref { slot: NONE, name: NONE }));
    }

    fn wide(&mut self, value: u64) {
        self.push(value as u32);
        self.push((value >> 32) as u32);
    }

    fn list<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        self.push(items.len() as u32);
        for item in items {
            write(self, item);
        }
    }

    fn indices(&mut self, items: &[u32]) {
        self.list(items, |cells, item| cells.push(*item));
    }

    fn props(&mut self, props: &[Prop]) {
        self.list(props, |cells, prop| {
            cells.push(prop.name);
            cells.push(prop.value);
        });
    }

    fn fields(&mut self, fields: &[Field]) {
        self.list(fields, |cells, field| {
            cells.push(field.name);
            cells.push(field.ty);
            cells.optional(field.default);
            cells.push(field.flags);
        });
    }

    fn loop_operands(&mut self, operands: &Loop) {
        self.push(operands.item_slot);
        self.push(operands.item_name);
        self.optional(operands.index_slot);
        self.optional(operands.index_name);
        self.push(operands.iterable);
        self.push(operands.body);
    }
}

fn write_type(cells: &mut Cells, ty: &Type) {
    use kinds::ty as k;
    match ty {
        Type::Primitive { name } => cells.0.extend([k::PRIMITIVE, *name]),
        Type::Nominal(target) => {
            cells.push(k::NOMINAL);
            cells.reference(*target);
        }
        Type::Function { result, params } => {
            cells.0.extend([k::FUNCTION, *result]);
            cells.list(params, |cells, param| cells.0.extend([param.name, param.ty, param.flags]));
        }
        Type::Seq { item, occurrence } => cells.0.extend([k::SEQ, *item, *occurrence]),
        Type::AnyFunction { result } => cells.0.extend([k::ANY_FUNCTION, *result]),
        Type::Constrained { base, low, high, flags } => {
            cells.0.extend([k::CONSTRAINED, *base]);
            cells.optional(*low);
            cells.optional(*high);
            cells.push(*flags);
        }
    }
}

fn write_constant(cells: &mut Cells, constant: &Constant) {
    use kinds::constant as k;
    match *constant {
        Constant::Int(value) => {
            cells.push(k::INT);
            cells.wide(value as u64);
        }
        Constant::BigInt { digits } => cells.0.extend([k::BIGINT, digits]),
        Constant::Float(value) => {
            cells.push(k::FLOAT);
            cells.wide(value.to_bits());
        }
    }
}

fn write_node(cells: &mut Cells, node: &Node) {
    cells.push(node.kind());
    match node {
        Node::Bool { value } => cells.push(*value),
        Node::String { value } => cells.push(*value),
        Node::Number { constant } => cells.push(*constant),
        Node::Slot { slot, name } => cells.0.extend([*slot, *name]),
        Node::Reference(target) => cells.reference(*target),
        Node::Binary { op, lhs, rhs } => cells.0.extend([*op, *lhs, *rhs]),
        Node::Unary { op, operand } => cells.0.extend([*op, *operand]),
        Node::Call { callee, args } => {
            cells.push(*callee);
            cells.list(args, |cells, arg| cells.optional(*arg));
        }
        Node::Intrinsic { op, args, order } => {
            cells.push(*op);
            cells.indices(args);
            cells.indices(order);
        }
        Node::If { cond, then, otherwise } => {
            cells.0.extend([*cond, *then]);
            cells.optional(*otherwise);
        }
        Node::IfIs { scrutinee, arms, otherwise } => {
            cells.push(*scrutinee);
            cells.list(arms, |cells, arm| {
                cells.indices(&arm.patterns);
                cells.push(arm.body);
            });
            cells.optional(*otherwise);
        }
        Node::Array { items } => cells.indices(items),
        Node::For(operands) | Node::ForRange(operands) => cells.loop_operands(operands),
        Node::Member { base, member } | Node::OptionalMember { base, member } => cells.0.extend([*base, *member]),
        Node::Record { target, props, content } | Node::Component { target, props, content } => {
            cells.reference(*target);
            cells.props(props);
            cells.indices(content);
        }
        Node::UnionCase { union, case, props, content } => {
            cells.reference(*union);
            cells.push(*case);
            cells.props(props);
            cells.indices(content);
        }
        Node::Element { id, tag, props, content } => {
            cells.0.extend([*id, *tag]);
            cells.props(props);
            cells.indices(content);
        }
        Node::ActionHandler { component, emit, action, binding, owner, body } => {
            cells.reference(*component);
            cells.push(*emit);
            cells.reference(*action);
            cells.push(*binding);
            cells.optional_reference(*owner);
            cells.push(*body);
        }
        Node::Text { operand, type_name } => cells.0.extend([*operand, *type_name]),
        Node::NamedCall { callee, args } => {
            cells.push(*callee);
            cells.props(args);
        }
        Node::Exists { operand } => cells.push(*operand),
        Node::Coalesce { left, right } => cells.0.extend([*left, *right]),
        Node::StandardMath { op, args } | Node::StandardColor { op, args } => {
            cells.push(*op);
            cells.indices(args);
        }
        Node::Check { operand, ty, site } => cells.0.extend([*operand, *ty, *site]),
        Node::Interval { ty } => cells.push(*ty),
    }
}

/// One declaration; `state_records`: the schema has a component's trailing state record operand.
fn write_declaration(cells: &mut Cells, declaration: &Decl, state_records: bool) {
    cells.0.extend([declaration.kind(), declaration.name()]);
    match declaration {
        Decl::Function { params, body, result, result_flags, .. } => {
            cells.fields(params);
            cells.push(*body);
            cells.optional(*result);
            cells.push(*result_flags);
        }
        Decl::Value { init, ty, .. } => {
            cells.push(*init);
            cells.optional(*ty);
        }
        Decl::Record { fields, bases, is_abstract, update_target, .. } => {
            cells.fields(fields);
            cells.list(bases, |cells, base| cells.reference(*base));
            cells.push(*is_abstract);
            cells.optional_reference(*update_target);
        }
        Decl::Component { props, state, body, flags, emits, state_record, .. } => {
            cells.fields(props);
            cells.fields(state);
            cells.optional(*body);
            cells.push(*flags);
            cells.list(emits, |cells, emit| {
                cells.push(emit.name);
                cells.reference(emit.action);
            });
            if state_records || state_record.is_some() {
                cells.optional_reference(*state_record);
            }
        }
        Decl::Union { cases, bases, property_target, .. } => {
            cells.list(cases, |cells, case| {
                cells.push(case.name);
                cells.fields(&case.fields);
                cells.push(case.is_constant);
            });
            cells.list(bases, |cells, base| cells.reference(*base));
            cells.optional_reference(*property_target);
        }
        Decl::TypeAlias { .. } => {}
    }
}

/// Declaration spans, node spans (an unknown span as two `none` cells), then the source
/// zero-padded to four bytes.
fn debug_section(debug: &crate::model::Debug) -> Vec<u8> {
    let mut cells = Vec::with_capacity(3 + 2 * (debug.declaration_spans.len() + debug.node_spans.len()));
    let mut spans = |spans: &[Span]| {
        cells.push(spans.len() as u32);
        for span in spans {
            let (start, end) = span.unwrap_or((NONE, NONE));
            cells.extend([start, end]);
        }
    };
    spans(&debug.declaration_spans);
    spans(&debug.node_spans);
    cells.push(debug.source.len() as u32);
    let mut bytes = to_bytes(&cells);
    bytes.extend_from_slice(debug.source.as_bytes());
    pad(&mut bytes);
    bytes
}
