//! A module's declarations as plain typed data, for hosts that describe an image's API (JSON
//! Schema for tool arguments and results) rather than run it.
//!
//! Every name is resolved to text and every type reference to the identity of the module that
//! declares it, so a reader needs neither the string table nor the module table. Defaults are
//! kept only as far as an image says what they are: a literal, a constant union case, or
//! "computed" (any other expression). What an image never records (doc comments, alias targets,
//! a record's type parameters, an inferred result type) is not here either.
//!
//! Each name's text is read once and shared ([`Text`]): an image's fields, cases and types may
//! all name one long string, and a copy for each would take their number times its length.
//!
//! [`crate::image::PreparedModule::declarations`] builds this once per prepared module.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use crate::image::PreparedModule;
use crate::model::{kinds, Constant, Decl, Field, Node, Ref, Type};

/// How deeply a type may nest before it is read as [`TypeView::Invalid`]. A validated image's
/// types only refer to earlier ones, but nothing here recurses on a depth the image controls.
const MAX_TYPE_DEPTH: usize = 64;

/// Type views one module's declarations may hold in all, per byte of its image (plus
/// [`TYPE_VIEWS_BASE`]). Types refer only to earlier ones, but a function type may name one type
/// in several parameters: a chain of such types is a tree exponentially larger than the image.
/// Past the budget a type reads as [`TypeView::Invalid`], so reading is linear in the image.
pub const TYPE_VIEWS_PER_BYTE: u64 = 4;
pub const TYPE_VIEWS_BASE: u64 = 1 << 12;

/// A name's text, shared by every place of the view that names it.
pub type Text = Arc<str>;

/// A declaration named by its module's identity and its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QualifiedName {
    pub module: Text,
    pub name: Text,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeView {
    Primitive(Text),
    Nominal(QualifiedName),
    /// `occurrence` is the seq cell: 1 `?`, 2 `+`, 3 `*`.
    Seq { item: Box<TypeView>, occurrence: u32 },
    Function { params: Vec<FunctionTypeParam>, result: Box<TypeView> },
    AnyFunction { result: Box<TypeView> },
    /// Schema 6: `base` (a numeric primitive) narrowed to an interval; `None` is an open end.
    Constrained { base: Box<TypeView>, low: Option<BoundView>, high: Option<BoundView> },
    /// A type the image does not let us read (nested too deeply, out of range, or past the
    /// module's budget of type views: a type DAG, [`TYPE_VIEWS_PER_BYTE`]).
    Invalid,
}

/// A number as a constant holds it: an integer or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    /// The number as `nxlang ir explain` spells a constant: `10`, `0.5`, `1.0`, `inf`.
    pub fn text(self) -> String {
        match self {
            Number::Int(value) => value.to_string(),
            Number::Float(value) => crate::spelling::float_text(value),
        }
    }
}

/// One end of a constrained type's interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundView {
    pub value: Number,
    /// The end itself is outside the interval (`>` or `<` rather than `>=` or `<=`).
    pub exclusive: bool,
}

/// A parameter of a function type.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionTypeParam {
    pub name: Text,
    pub ty: TypeView,
    pub optional: bool,
    pub content: bool,
}

/// A literal an image holds as a constant node.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Int(i64),
    /// Decimal digits of an integer wider than 64 bits.
    BigInt(Text),
    Float(f64),
    String(Text),
    Bool(bool),
}

/// What a default is, as far as the image says.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultView {
    Literal(Literal),
    /// A constant case of a union, named with no fields.
    Case { union: QualifiedName, case: Text },
    /// Any other expression: evaluated at each call, with no constant value.
    Computed,
}

/// A field, a component prop or state field, a union case field, or a function parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldView {
    pub name: Text,
    pub ty: TypeView,
    pub default: Option<DefaultView>,
    /// The raw flags cell (meaning depends on where the field is; see [`kinds::flags`]).
    pub flags: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseView {
    pub name: Text,
    pub fields: Vec<FieldView>,
    pub is_constant: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DeclarationKind {
    Function { params: Vec<FieldView>, result: Option<TypeView>, result_flags: u32 },
    Value { ty: Option<TypeView> },
    Record {
        fields: Vec<FieldView>,
        bases: Vec<QualifiedName>,
        is_abstract: bool,
        update_target: Option<QualifiedName>,
    },
    Component {
        props: Vec<FieldView>,
        state: Vec<FieldView>,
        flags: u32,
        /// Schema 6: the component's `<Component>.State` record, when the image names one.
        state_record: Option<QualifiedName>,
    },
    Union { cases: Vec<CaseView>, bases: Vec<QualifiedName>, property_target: Option<QualifiedName> },
    TypeAlias,
}

/// One declaration, in the module's declaration order.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclarationView {
    pub name: Text,
    /// Byte span in the module's source, where the debug section records one.
    pub span: Option<(u32, u32)>,
    pub kind: DeclarationKind,
}

/// Reads every declaration of a validated module.
pub fn read(module: &PreparedModule) -> Vec<DeclarationView> {
    let budget = TYPE_VIEWS_BASE.saturating_add(TYPE_VIEWS_PER_BYTE.saturating_mul(module.bytes().len() as u64));
    let reader = Reader {
        module,
        left: Cell::new(budget),
        strings: RefCell::new(vec![None; module.string_count()]),
        identities: RefCell::default(),
        defaults: RefCell::default(),
        bounds: RefCell::default(),
        negated: RefCell::default(),
    };
    (0..module.declaration_count() as u32)
        .filter_map(|index| {
            let declaration = module.decode_declaration(index)?;
            Some(DeclarationView {
                name: reader.string(declaration.name()),
                span: module.declaration_span(index),
                kind: reader.kind(&declaration),
            })
        })
        .collect()
}

struct Reader<'m> {
    module: &'m PreparedModule,
    /// Type views the budget still allows.
    left: Cell<u64>,
    /// What the view has read once, to share: each string by its index, each module identity
    /// by its slot, each default by its node, each bound by its constant and each negated wide
    /// integer by its digits.
    strings: RefCell<Vec<Option<Text>>>,
    identities: RefCell<HashMap<u32, Text>>,
    defaults: RefCell<HashMap<u32, DefaultView>>,
    bounds: RefCell<HashMap<u32, Option<Number>>>,
    negated: RefCell<HashMap<u32, Text>>,
}

impl Reader<'_> {
    fn string(&self, index: u32) -> Text {
        let mut strings = self.strings.borrow_mut();
        match strings.get_mut(index as usize) {
            Some(Some(text)) => Arc::clone(text),
            Some(slot) => Arc::clone(slot.insert(Arc::from(self.module.string(index).unwrap_or("")))),
            None => Arc::from(""),
        }
    }

    fn qualified(&self, reference: Ref) -> QualifiedName {
        let module = Arc::clone(self.identities.borrow_mut().entry(reference.slot).or_insert_with(|| {
            Arc::from(self.module.module_entry(reference.slot as usize).map_or("", |entry| entry.identity))
        }));
        QualifiedName { module, name: self.string(reference.name) }
    }

    fn kind(&self, declaration: &Decl) -> DeclarationKind {
        match declaration {
            Decl::Function { params, result, result_flags, .. } => DeclarationKind::Function {
                params: self.fields(params),
                result: result.map(|ty| self.ty(ty)),
                result_flags: *result_flags,
            },
            Decl::Value { ty, .. } => DeclarationKind::Value { ty: ty.map(|ty| self.ty(ty)) },
            Decl::Record { fields, bases, is_abstract, update_target, .. } => DeclarationKind::Record {
                fields: self.fields(fields),
                bases: bases.iter().map(|&base| self.qualified(base)).collect(),
                is_abstract: *is_abstract != 0,
                update_target: update_target.map(|target| self.qualified(target)),
            },
            Decl::Component { props, state, flags, state_record, .. } => DeclarationKind::Component {
                props: self.fields(props),
                state: self.fields(state),
                flags: *flags,
                state_record: state_record.map(|record| self.qualified(record)),
            },
            Decl::Union { cases, bases, property_target, .. } => DeclarationKind::Union {
                cases: cases
                    .iter()
                    .map(|case| CaseView {
                        name: self.string(case.name),
                        fields: self.fields(&case.fields),
                        is_constant: case.is_constant != 0,
                    })
                    .collect(),
                bases: bases.iter().map(|&base| self.qualified(base)).collect(),
                property_target: property_target.map(|target| self.qualified(target)),
            },
            Decl::TypeAlias { .. } => DeclarationKind::TypeAlias,
        }
    }

    fn fields(&self, fields: &[Field]) -> Vec<FieldView> {
        fields
            .iter()
            .map(|field| FieldView {
                name: self.string(field.name),
                ty: self.ty(field.ty),
                default: field.default.map(|node| self.default(node)),
                flags: field.flags,
            })
            .collect()
    }

    fn ty(&self, index: u32) -> TypeView {
        self.ty_at(index, 0)
    }

    fn ty_at(&self, index: u32, depth: usize) -> TypeView {
        if depth > MAX_TYPE_DEPTH || self.left.get() == 0 {
            return TypeView::Invalid;
        }
        self.left.set(self.left.get() - 1);
        let Some(ty) = self.module.decode_type(index) else { return TypeView::Invalid };
        match ty {
            Type::Primitive { name } => TypeView::Primitive(self.string(name)),
            Type::Nominal(reference) => TypeView::Nominal(self.qualified(reference)),
            Type::Seq { item, occurrence } => {
                TypeView::Seq { item: Box::new(self.ty_at(item, depth + 1)), occurrence }
            }
            Type::Function { result, params } => TypeView::Function {
                params: params
                    .iter()
                    .map(|param| FunctionTypeParam {
                        name: self.string(param.name),
                        ty: self.ty_at(param.ty, depth + 1),
                        optional: param.flags & kinds::flags::PARAM_OPTIONAL != 0,
                        content: param.flags & kinds::flags::PARAM_CONTENT != 0,
                    })
                    .collect(),
                result: Box::new(self.ty_at(result, depth + 1)),
            },
            Type::AnyFunction { result } => TypeView::AnyFunction { result: Box::new(self.ty_at(result, depth + 1)) },
            Type::Constrained { base, low, high, flags } => {
                let bound = |constant: Option<u32>, exclusive_bit: u32| {
                    Some(BoundView { value: self.bound(constant?)?, exclusive: flags & exclusive_bit != 0 })
                };
                TypeView::Constrained {
                    base: Box::new(self.ty_at(base, depth + 1)),
                    low: bound(low, kinds::ty::CONSTRAINED_LOW_EXCLUSIVE),
                    high: bound(high, kinds::ty::CONSTRAINED_HIGH_EXCLUSIVE),
                }
            }
        }
    }

    /// Constant `index` as a bound of a constrained type, read once.
    fn bound(&self, index: u32) -> Option<Number> {
        if let Some(number) = self.bounds.borrow().get(&index) {
            return *number;
        }
        let number = match self.constant(index)? {
            Literal::Int(value) => Some(Number::Int(value)),
            Literal::Float(value) => Some(Number::Float(value)),
            // A validated image's bigint bound fits 64 bits.
            Literal::BigInt(digits) => digits.parse().ok().map(Number::Int),
            _ => None,
        };
        self.bounds.borrow_mut().insert(index, number);
        number
    }

    fn constant(&self, index: u32) -> Option<Literal> {
        Some(match self.module.decode_constant(index)? {
            Constant::Int(value) => Literal::Int(value),
            Constant::BigInt { digits } => Literal::BigInt(self.string(digits)),
            Constant::Float(value) => Literal::Float(value),
        })
    }

    /// A default node read as a literal, a constant case, or computed; once per node.
    fn default(&self, node: u32) -> DefaultView {
        if let Some(view) = self.defaults.borrow().get(&node) {
            return view.clone();
        }
        let view = self.read_default(node);
        self.defaults.borrow_mut().insert(node, view.clone());
        view
    }

    /// String `digits` with a minus sign, made once per string.
    fn negated(&self, digits: u32) -> Text {
        let mut negated = self.negated.borrow_mut();
        let text = negated.entry(digits).or_insert_with(|| format!("-{}", self.module.string(digits).unwrap_or("")).into());
        Arc::clone(text)
    }

    fn read_default(&self, node: u32) -> DefaultView {
        let literal = match self.module.decode_node(node) {
            Some(Node::Bool { value }) => Some(Literal::Bool(value != 0)),
            Some(Node::String { value }) => Some(Literal::String(self.string(value))),
            Some(Node::Number { constant }) => self.constant(constant),
            Some(Node::Unary { op, operand }) if kinds::UNARY_OPERATORS.get(op as usize) == Some(&"neg") => {
                match self.module.decode_node(operand) {
                    Some(Node::Number { constant }) => match self.module.decode_constant(constant) {
                        Some(Constant::Int(value)) => value.checked_neg().map(Literal::Int),
                        Some(Constant::Float(value)) => Some(Literal::Float(-value)),
                        Some(Constant::BigInt { digits }) => Some(Literal::BigInt(self.negated(digits))),
                        None => None,
                    },
                    _ => None,
                }
            }
            Some(Node::UnionCase { union, case, props, content }) if props.is_empty() && content.is_empty() => {
                return DefaultView::Case { union: self.qualified(union), case: self.string(case) };
            }
            _ => None,
        };
        literal.map_or(DefaultView::Computed, DefaultView::Literal)
    }
}
