//! The explain text as read, before any name is resolved: declarations, types and expressions
//! with their names as written and the positions they were written at.

/// A one-based position in the text; the column counts characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pos {
    pub line: usize,
    pub column: usize,
}

/// A name as written: `identity:a.b.c` or `a.b.c`. The segments are split at dots; which of them
/// name a declaration and which a member is decided when the name is resolved.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Name {
    /// The identity of a linked module, when the name is written with one.
    pub module: Option<String>,
    pub path: Vec<String>,
    pub at: Pos,
}

impl Name {
    pub fn joined(&self) -> String {
        self.path.join(".")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum TypeSyntax {
    Named(Name),
    /// A type with an occurrence suffix, as its occurrence cell.
    Seq(Box<TypeSyntax>, u32),
    Function {
        params: Vec<FunctionTypeParam>,
        result: Box<TypeSyntax>,
    },
    AnyFunction(Box<TypeSyntax>),
    /// Schema 6: `base where interval`.
    Constrained {
        base: Box<TypeSyntax>,
        interval: IntervalSyntax,
        at: Pos,
    },
}

/// A number as a constant spells it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum NumberSyntax {
    Int(i64),
    /// An integer outside ±(2^53 − 1), as its decimal digits.
    BigInt(String),
    Float(f64),
}

/// A constrained type's interval: `in A..=B`, `in A..B`, `>= A`, `> A`, `<= B`, `< B`, or a low
/// and a high term joined by ` && `. `None` is an open end.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct IntervalSyntax {
    pub low: Option<NumberSyntax>,
    pub high: Option<NumberSyntax>,
    pub low_exclusive: bool,
    pub high_exclusive: bool,
}

/// A parameter of a function type; `ty` is as written, the declared type for an optional one.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FunctionTypeParam {
    pub name: String,
    pub ty: TypeSyntax,
    pub flags: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Expr {
    pub at: Pos,
    pub kind: ExprKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum ExprKind {
    Bool(bool),
    Str(String),
    Int(i64),
    /// An integer outside ±(2^53 − 1), as its decimal digits.
    BigInt(String),
    Float(f64),
    Name(Name),
    Binary {
        op: u32,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Coalesce {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unary {
        op: u32,
        operand: Box<Expr>,
    },
    /// `callee(args)`, `_` for a left-out argument; `ordering` follows an intrinsic's arguments.
    Call {
        callee: Box<Expr>,
        args: Vec<Option<Expr>>,
        ordering: Vec<String>,
    },
    Text {
        type_name: String,
        operand: Box<Expr>,
    },
    If {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Option<Box<Expr>>,
    },
    IfIs {
        scrutinee: Box<Expr>,
        arms: Vec<(Vec<Expr>, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Array(Vec<Expr>),
    For {
        item: String,
        index: Option<String>,
        iterable: Box<Expr>,
        body: Box<Expr>,
    },
    Member {
        base: Box<Expr>,
        name: String,
    },
    OptionalMember {
        base: Box<Expr>,
        name: String,
    },
    Exists(Box<Expr>),
    /// `<name props>content</name>`: a record, union case, element, component or call by name.
    /// A spread property is written (and kept) with the key `...`.
    Construct {
        name: Name,
        tag: String,
        props: Vec<(String, Expr)>,
        content: Vec<Expr>,
    },
    /// Schema 6: `(check site: operand as type)`.
    Check {
        site: String,
        operand: Box<Expr>,
        ty: TypeSyntax,
    },
    /// Schema 6: an interval pattern of an `ifIs` arm.
    Interval(IntervalSyntax),
    Handler {
        component: Name,
        emit: String,
        slot: u32,
        action: Name,
        owner: Option<Name>,
        body: Box<Expr>,
    },
}

/// A field, prop, state field or parameter. `ty` is the type as written: an optional parameter
/// shows its declared type, not its read type.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FieldSyntax {
    pub name: String,
    pub ty: TypeSyntax,
    pub flags: u32,
    pub default: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct CaseSyntax {
    pub name: String,
    pub constant: bool,
    pub fields: Vec<FieldSyntax>,
}

/// `@line:column-line:column`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SpanSyntax {
    pub start: Pos,
    pub end: Pos,
    pub at: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum DeclKind {
    Function {
        params: Vec<FieldSyntax>,
        result: Option<TypeSyntax>,
        optional_result: bool,
        body: Expr,
    },
    Value {
        ty: Option<TypeSyntax>,
        init: Expr,
    },
    Record {
        is_abstract: bool,
        bases: Vec<Name>,
        update_of: Option<Name>,
        fields: Vec<FieldSyntax>,
    },
    Component {
        flags: u32,
        /// Schema 6: ` state Name` on the header line.
        state_record: Option<Name>,
        props: Vec<FieldSyntax>,
        state: Vec<FieldSyntax>,
        emits: Vec<(String, Name)>,
        body: Option<Expr>,
    },
    Union {
        bases: Vec<Name>,
        property_of: Option<Name>,
        cases: Vec<CaseSyntax>,
    },
    Alias,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct DeclSyntax {
    pub name: String,
    pub at: Pos,
    pub span: Option<SpanSyntax>,
    pub kind: DeclKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct LinkSyntax {
    pub identity: String,
    pub version: String,
    pub fingerprint: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct ModuleSyntax {
    pub identity: String,
    pub fingerprint: u64,
    pub links: Vec<LinkSyntax>,
    pub features: Vec<String>,
    pub function_entrypoints: Vec<(String, Pos)>,
    pub component_entrypoints: Vec<(String, Pos)>,
    pub declarations: Vec<DeclSyntax>,
}
