//! The owned, fully decoded form of one image: every table as typed entries whose operands are
//! indices, exactly as the image stores them. The reader decodes into it ([`crate::image`]),
//! the writer encodes it, the explainer renders it and the assembler builds it. Evaluation does
//! not use it: it reads prepared images in place.
//!
//! Index operands are `u32` (a string, type, constant, node or declaration index); optional ones
//! are `Option<u32>` and are written as `none` (`0xFFFFFFFF`) when absent.

/// `0xFFFFFFFF`: a missing optional operand.
pub const NONE: u32 = u32::MAX;

/// Kind numbers of schemas 5 and 6, by table. Schema 6 only adds: type kind 7, node kinds 26 to
/// 29, four features and a component declaration's trailing state record reference.
pub mod kinds {
    /// The schema of NX 0.7 images.
    pub const SCHEMA_5: u32 = 5;
    /// The schema of NX 0.8 to 0.10 images.
    pub const SCHEMA_6: u32 = 6;
    /// The schemas the reader accepts, oldest first.
    pub const SCHEMAS: [u32; 2] = [SCHEMA_5, SCHEMA_6];
    /// The newest schema, which the current NX release writes.
    pub const LATEST_SCHEMA: u32 = SCHEMA_6;
    pub const MAGIC: &[u8; 4] = b"NXIR";
    /// The same string for both schemas.
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
    /// The features a schema 6 runtime accepts: schema 5's and the four schema 6 adds.
    pub const KNOWN_FEATURES_6: [&str; 12] = [
        "update-records-v1",
        "property-unions-v1",
        "update-intrinsics-v1",
        "action-handlers-v1",
        "function-values-v1",
        "function-reference-type-v1",
        "ranges-v1",
        "occurrence-v1",
        CONSTRAINTS_FEATURE,
        STANDARD_MATH_FEATURE,
        STANDARD_COLOR_FEATURE,
        CONDITIONAL_PROPERTIES_FEATURE,
    ];
    pub const OCCURRENCE_FEATURE: &str = "occurrence-v1";
    /// Schema 6: constrained types, `check` nodes and interval patterns. No reference release
    /// refuses a module that uses them without listing it.
    pub const CONSTRAINTS_FEATURE: &str = "constraints-v1";
    /// Schema 6: required by a module holding a `standardMath` node.
    pub const STANDARD_MATH_FEATURE: &str = "standard-math-v1";
    /// Schema 6: required by a module holding a `standardColor` node.
    pub const STANDARD_COLOR_FEATURE: &str = "standard-color-v1";
    /// Schema 6: required by a module whose property lists spread a record ([`SPREAD_PROPERTY`]).
    pub const CONDITIONAL_PROPERTIES_FEATURE: &str = "conditional-properties-v1";
    /// Schema 6: the property name that spreads a record's fields into the one being built.
    pub const SPREAD_PROPERTY: &str = "$spread";

    /// The features a runtime of `schema` accepts (none for a schema it does not read).
    pub fn known_features(schema: u32) -> &'static [&'static str] {
        match schema {
            SCHEMA_5 => &KNOWN_FEATURES,
            SCHEMA_6 => &KNOWN_FEATURES_6,
            _ => &[],
        }
    }

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
        /// Schema 6: a numeric primitive narrowed to an interval, `[7, base, low, high, flags]`.
        pub const CONSTRAINED: u32 = 7;
        /// Flag bit of a constrained type: the low end is excluded.
        pub const CONSTRAINED_LOW_EXCLUSIVE: u32 = 1;
        /// Flag bit of a constrained type: the high end is excluded.
        pub const CONSTRAINED_HIGH_EXCLUSIVE: u32 = 2;
        /// The primitive names a constrained type's base may have.
        pub const CONSTRAINABLE: [&str; 5] = ["int", "int32", "int64", "float32", "float64"];
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
        /// Schema 6: `[26, op, [args]]`, an operation of [`super::STANDARD_MATH_OPERATIONS`].
        pub const STANDARD_MATH: u32 = 26;
        /// Schema 6: `[27, op, [args]]`, an operation of [`super::STANDARD_COLOR_OPERATIONS`].
        pub const STANDARD_COLOR: u32 = 27;
        /// Schema 6: `[28, operand, type, site]`, the operand checked against a constrained type.
        pub const CHECK: u32 = 28;
        /// Schema 6: `[29, type]`, an `ifIs` pattern matching a constrained type's interval.
        pub const INTERVAL: u32 = 29;
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
    /// Schema 6: the standard math operations, by code (the `op` cell of a `standardMath` node).
    pub const STANDARD_MATH_OPERATIONS: [&str; 22] = [
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sqrt", "hypot", "abs", "sign", "min",
        "max", "clamp", "floor", "ceil", "round", "roundTiesToEven", "trunc", "degreesToRadians",
        "radiansToDegrees", "lerp",
    ];
    /// How many arguments each standard math operation takes, by code.
    pub const STANDARD_MATH_ARITIES: [u32; 22] =
        [1, 1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 2, 2, 3, 1, 1, 1, 1, 1, 1, 1, 3];
    /// Schema 6: the standard colour operations, by code (the `op` cell of a `standardColor`
    /// node).
    pub const STANDARD_COLOR_OPERATIONS: [&str; 37] = [
        "rgb", "rgba", "srgb", "linearRgb", "hsl", "hsv", "hwb", "oklab", "oklch", "parse",
        "tryParse", "validate", "toHex", "toCss", "toRgb", "toHsl", "toHsv", "toHwb", "toLinearRgb",
        "toOklab", "toOklch", "withAlpha", "fadeIn", "fadeOut", "lighten", "darken", "saturate",
        "desaturate", "rotateHue", "complement", "grayscale", "invert", "mix", "composite",
        "relativeLuminance", "contrastRatio", "bestTextColor",
    ];
    /// How many arguments each standard colour operation takes, by code.
    pub const STANDARD_COLOR_ARITIES: [u32; 37] = [
        3, 4, 4, 4, 4, 4, 4, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1,
        2, 4, 2, 1, 2, 3,
    ];
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
    /// Schema 6: `base` (a numeric primitive type) narrowed to an interval whose ends index the
    /// constant table (`None`: open); `flags` holds the exclusive-end bits.
    Constrained { base: u32, low: Option<u32>, high: Option<u32>, flags: u32 },
}

impl Type {
    /// The type kind number.
    pub fn kind(&self) -> u32 {
        use kinds::ty as k;
        match self {
            Type::Primitive { .. } => k::PRIMITIVE,
            Type::Nominal(_) => k::NOMINAL,
            Type::Function { .. } => k::FUNCTION,
            Type::Seq { .. } => k::SEQ,
            Type::AnyFunction { .. } => k::ANY_FUNCTION,
            Type::Constrained { .. } => k::CONSTRAINED,
        }
    }
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
    /// Schema 6: a standard math operation (by code) of its arguments.
    StandardMath { op: u32, args: Vec<u32> },
    /// Schema 6: a standard colour operation (by code) of its arguments.
    StandardColor { op: u32, args: Vec<u32> },
    /// Schema 6: `operand` checked against the constrained type `ty`; `site` (a string) names
    /// where, for the failure's message.
    Check { operand: u32, ty: u32, site: u32 },
    /// Schema 6: an `ifIs` pattern matching values in the constrained type `ty`'s interval.
    Interval { ty: u32 },
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
            Node::StandardMath { .. } => k::STANDARD_MATH,
            Node::StandardColor { .. } => k::STANDARD_COLOR,
            Node::Check { .. } => k::CHECK,
            Node::Interval { .. } => k::INTERVAL,
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
        /// Schema 6: the component's `<Component>.State` record, when the image names one.
        /// Schema 5 has no such operand.
        state_record: Option<Ref>,
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
    /// The schema the image is written in: [`kinds::SCHEMA_5`] or [`kinds::SCHEMA_6`].
    pub schema: u32,
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
