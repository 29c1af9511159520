//! The owned, fully decoded form of one image: every table as typed entries whose operands are
//! indices, exactly as the image stores them. The reader decodes into it ([`crate::image`]),
//! the writer encodes it, the explainer renders it and the assembler builds it. Evaluation does
//! not use it: it reads prepared images in place.
//!
//! Index operands are `u32` (a string, type, constant, node or declaration index); optional ones
//! are `Option<u32>` and are written as `none` (`0xFFFFFFFF`) when absent.

/// `0xFFFFFFFF`: a missing optional operand.
pub const NONE: u32 = u32::MAX;

/// Kind numbers of schema 5, by table.
pub mod kinds {
    pub const SCHEMA_VERSION: u32 = 5;
    pub const MAGIC: &[u8; 4] = b"NXIR";
    pub const RUNTIME_ABI: &str = "nx-ir-runtime-v2";
    /// The features a schema 5 runtime accepts, in no particular order.
    pub const KNOWN_FEATURES: [&str; 8] = [
        "update-records-v1",
        "property-unions-v1",
        "update-intrinsics-v1",
        "action-handlers-v1",
        "function-values-v1",
        "function-reference-type-v1",
        "ranges-v1",
        "occurrence-v1",
    ];
    pub const OCCURRENCE_FEATURE: &str = "occurrence-v1";

    pub mod section {
        pub const STRINGS: u32 = 0;
        pub const MODULE: u32 = 1;
        pub const TYPES: u32 = 2;
        pub const CONSTANTS: u32 = 3;
        pub const NODES: u32 = 4;
        pub const DECLARATIONS: u32 = 5;
        pub const DEBUG: u32 = 6;
    }

    pub mod ty {
        pub const PRIMITIVE: u32 = 0;
        pub const NOMINAL: u32 = 1;
        /// Retired with schema 5.
        pub const ARRAY: u32 = 2;
        /// Retired with schema 5.
        pub const NULLABLE: u32 = 3;
        pub const FUNCTION: u32 = 4;
        pub const SEQ: u32 = 5;
        pub const ANY_FUNCTION: u32 = 6;
        /// Occurrence bits of a seq type.
        pub const MAY_BE_EMPTY: u32 = 1;
        pub const MAY_HOLD_MANY: u32 = 2;
    }

    pub mod constant {
        pub const INT: u32 = 0;
        pub const BIGINT: u32 = 1;
        pub const FLOAT: u32 = 2;
    }

    pub mod node {
        /// Retired with schema 5.
        pub const NULL: u32 = 0;
        pub const BOOL: u32 = 1;
        pub const STRING: u32 = 2;
        pub const NUMBER: u32 = 3;
        pub const SLOT: u32 = 4;
        pub const REFERENCE: u32 = 5;
        pub const BINARY: u32 = 6;
        pub const UNARY: u32 = 7;
        pub const CALL: u32 = 8;
        pub const INTRINSIC: u32 = 9;
        pub const IF: u32 = 10;
        pub const IF_IS: u32 = 11;
        pub const ARRAY: u32 = 12;
        pub const FOR: u32 = 13;
        pub const MEMBER: u32 = 14;
        pub const RECORD: u32 = 15;
        pub const UNION_CASE: u32 = 16;
        pub const ELEMENT: u32 = 17;
        pub const COMPONENT: u32 = 18;
        pub const ACTION_HANDLER: u32 = 19;
        pub const TEXT: u32 = 20;
        pub const NAMED_CALL: u32 = 21;
        pub const FOR_RANGE: u32 = 22;
        pub const EXISTS: u32 = 23;
        pub const OPTIONAL_MEMBER: u32 = 24;
        pub const COALESCE: u32 = 25;
    }

    pub mod declaration {
        pub const FUNCTION: u32 = 0;
        pub const VALUE: u32 = 1;
        pub const RECORD: u32 = 2;
        pub const COMPONENT: u32 = 3;
        pub const UNION: u32 = 4;
        pub const TYPE_ALIAS: u32 = 5;
    }

    /// Flag bits.
    pub mod flags {
        /// Function parameter (and function type parameter): takes body content.
        pub const PARAM_CONTENT: u32 = 1;
        /// Function parameter (and function type parameter): declared `p?: T`.
        pub const PARAM_OPTIONAL: u32 = 2;
        /// Function result: a standalone `T?` (an empty result is `null` at the host).
        pub const RESULT_OPTIONAL: u32 = 1;
        /// Field (record, component prop or state, union case field): content field.
        pub const FIELD_CONTENT: u32 = 1;
        /// Field: required.
        pub const FIELD_REQUIRED: u32 = 2;
        /// Component: abstract.
        pub const COMPONENT_ABSTRACT: u32 = 1;
        /// Component: external.
        pub const COMPONENT_EXTERNAL: u32 = 2;
    }

    /// Binary operator codes 0..=19, by name.
    pub const BINARY_OPERATORS: [&str; 20] = [
        "add", "sub", "mul", "div", "idiv", "mod", "imod", "concat", "eq", "ne", "lt", "le", "gt",
        "ge", "and", "or", "fadd32", "fsub32", "fmul32", "fdiv32",
    ];
    /// Unary operator codes 0..=1.
    pub const UNARY_OPERATORS: [&str; 2] = ["neg", "not"];
    /// Intrinsic codes 0..=3.
    pub const INTRINSICS: [&str; 4] = ["apply", "merge", "diff", "changed"];
    /// Type names a `text` node may convert from.
    pub const TEXT_TYPE_NAMES: [&str; 6] = ["int", "int32", "int64", "float32", "float64", "boolean"];
    /// Primitive type names runtimes give meaning to.
    pub const PRIMITIVE_NAMES: [&str; 8] =
        ["int", "int32", "int64", "float32", "float64", "string", "boolean", "object"];
}

/// A module-table slot and a declaration name (a string index). Slot 0 is the image's own module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ref {
    pub slot: u32,
    pub name: u32,
}

/// One entry of the module table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleEntry {
    pub identity: u32,
    pub version: u32,
    pub fingerprint: u64,
}

/// A parameter of a function type (type kind 4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeParam {
    pub name: u32,
    pub ty: u32,
    pub flags: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Primitive { name: u32 },
    Nominal(Ref),
    Function { result: u32, params: Vec<TypeParam> },
    Seq { item: u32, occurrence: u32 },
    AnyFunction { result: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Constant {
    Int(i64),
    /// Decimal digits, as a string index.
    BigInt { digits: u32 },
    Float(f64),
}

/// `name = value` of a property list (record, union case, element, component, named call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prop {
    pub name: u32,
    pub value: u32,
}

/// One arm of an `ifIs` node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arm {
    pub patterns: Vec<u32>,
    pub body: u32,
}

/// The operands of `for` and `forRange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loop {
    pub item_slot: u32,
    pub item_name: u32,
    pub index_slot: Option<u32>,
    pub index_name: Option<u32>,
    pub iterable: u32,
    pub body: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// The raw cell: any non-zero value is true.
    Bool { value: u32 },
    String { value: u32 },
    Number { constant: u32 },
    Slot { slot: u32, name: u32 },
    Reference(Ref),
    Binary { op: u32, lhs: u32, rhs: u32 },
    Unary { op: u32, operand: u32 },
    /// `None` arguments were left out for the callee to fill.
    Call { callee: u32, args: Vec<Option<u32>> },
    Intrinsic { op: u32, args: Vec<u32>, order: Vec<u32> },
    If { cond: u32, then: u32, otherwise: Option<u32> },
    IfIs { scrutinee: u32, arms: Vec<Arm>, otherwise: Option<u32> },
    Array { items: Vec<u32> },
    For(Loop),
    Member { base: u32, member: u32 },
    Record { target: Ref, props: Vec<Prop>, content: Vec<u32> },
    UnionCase { union: Ref, case: u32, props: Vec<Prop>, content: Vec<u32> },
    Element { id: u32, tag: u32, props: Vec<Prop>, content: Vec<u32> },
    Component { target: Ref, props: Vec<Prop>, content: Vec<u32> },
    ActionHandler { component: Ref, emit: u32, action: Ref, binding: u32, owner: Option<Ref>, body: u32 },
    Text { operand: u32, type_name: u32 },
    NamedCall { callee: u32, args: Vec<Prop> },
    ForRange(Loop),
    Exists { operand: u32 },
    OptionalMember { base: u32, member: u32 },
    Coalesce { left: u32, right: u32 },
}

impl Node {
    /// The node kind number.
    pub fn kind(&self) -> u32 {
        use kinds::node as k;
        match self {
            Node::Bool { .. } => k::BOOL,
            Node::String { .. } => k::STRING,
            Node::Number { .. } => k::NUMBER,
            Node::Slot { .. } => k::SLOT,
            Node::Reference(_) => k::REFERENCE,
            Node::Binary { .. } => k::BINARY,
            Node::Unary { .. } => k::UNARY,
            Node::Call { .. } => k::CALL,
            Node::Intrinsic { .. } => k::INTRINSIC,
            Node::If { .. } => k::IF,
            Node::IfIs { .. } => k::IF_IS,
            Node::Array { .. } => k::ARRAY,
            Node::For(_) => k::FOR,
            Node::Member { .. } => k::MEMBER,
            Node::Record { .. } => k::RECORD,
            Node::UnionCase { .. } => k::UNION_CASE,
            Node::Element { .. } => k::ELEMENT,
            Node::Component { .. } => k::COMPONENT,
            Node::ActionHandler { .. } => k::ACTION_HANDLER,
            Node::Text { .. } => k::TEXT,
            Node::NamedCall { .. } => k::NAMED_CALL,
            Node::ForRange(_) => k::FOR_RANGE,
            Node::Exists { .. } => k::EXISTS,
            Node::OptionalMember { .. } => k::OPTIONAL_MEMBER,
            Node::Coalesce { .. } => k::COALESCE,
        }
    }
}

/// A record field, component prop or state field, union case field, or function parameter
/// (same layout): name, type, optional default node, flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: u32,
    pub ty: u32,
    pub default: Option<u32>,
    pub flags: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionCaseDecl {
    pub name: u32,
    pub fields: Vec<Field>,
    /// The raw 0/1 cell.
    pub is_constant: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emit {
    pub name: u32,
    pub action: Ref,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decl {
    Function { name: u32, params: Vec<Field>, body: u32, result: Option<u32>, result_flags: u32 },
    Value { name: u32, init: u32, ty: Option<u32> },
    Record { name: u32, fields: Vec<Field>, bases: Vec<Ref>, is_abstract: u32, update_target: Option<Ref> },
    Component {
        name: u32,
        props: Vec<Field>,
        state: Vec<Field>,
        body: Option<u32>,
        flags: u32,
        emits: Vec<Emit>,
    },
    Union { name: u32, cases: Vec<UnionCaseDecl>, bases: Vec<Ref>, property_target: Option<Ref> },
    TypeAlias { name: u32 },
}

impl Decl {
    pub fn kind(&self) -> u32 {
        use kinds::declaration as k;
        match self {
            Decl::Function { .. } => k::FUNCTION,
            Decl::Value { .. } => k::VALUE,
            Decl::Record { .. } => k::RECORD,
            Decl::Component { .. } => k::COMPONENT,
            Decl::Union { .. } => k::UNION,
            Decl::TypeAlias { .. } => k::TYPE_ALIAS,
        }
    }

    /// The declaration's name (a string index).
    pub fn name(&self) -> u32 {
        match self {
            Decl::Function { name, .. }
            | Decl::Value { name, .. }
            | Decl::Record { name, .. }
            | Decl::Component { name, .. }
            | Decl::Union { name, .. }
            | Decl::TypeAlias { name } => *name,
        }
    }
}

/// A `(start, end)` byte span; `None` where either cell is `none` (unknown).
pub type Span = Option<(u32, u32)>;

/// The optional debug section: a span per declaration and per node, and the module's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Debug {
    pub declaration_spans: Vec<Span>,
    pub node_spans: Vec<Span>,
    pub source: String,
}

/// One image, fully decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    pub strings: Vec<String>,
    /// String index of the runtime ABI.
    pub abi: u32,
    /// String indices of the required features.
    pub features: Vec<u32>,
    /// The module table; entry 0 is this image's own module.
    pub modules: Vec<ModuleEntry>,
    pub function_entrypoints: Vec<u32>,
    pub component_entrypoints: Vec<u32>,
    pub types: Vec<Type>,
    pub constants: Vec<Constant>,
    pub nodes: Vec<Node>,
    pub declarations: Vec<Decl>,
    pub debug: Option<Debug>,
}

impl Module {
    /// The string at `index` (an empty string if out of range).
    pub fn string(&self, index: u32) -> &str {
        self.strings.get(index as usize).map(String::as_str).unwrap_or("")
    }
}
