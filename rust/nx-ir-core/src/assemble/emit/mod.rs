//! Resolves the names of a read text and lays its declarations out as the emitter does.
//!
//! Rules (those the reference images pin, and the format's stated ones for the rest):
//! * Everything is visited in layout order: each declaration's and node's operands in the order
//!   their cells appear, children before the node that holds them. Strings, types and constants
//!   are numbered on first use in that walk (deduplicated); nodes are appended as they complete,
//!   so every child precedes its parent.
//! * The module section's strings come last: each module's identity and version, then the ABI,
//!   then the features.
//! * Property lists and call-by-name arguments are sorted by name; content keeps its order.
//! * Slots: parameters, fields, or props then state take the leading slots; after them each
//!   `for` binding takes the next slot in walk order. A handler's `action` slot is the one the
//!   text shows, and later bindings are numbered past it.
//! * Element ids count the module's elements in walk order, an element before its children.
//! * Schema 6: a property list that spreads a record keeps its written order (a later property
//!   overrides an earlier one); an interval pattern's type, which the text does not spell, has
//!   the base `int` when every bound is written as an integer and `float64` otherwise.
//! * Assembled as schema 5, a text that uses what schema 6 added is refused, naming it.

mod nodes;
mod resolve;

use super::cursor::{error_at, ParseResult};
use super::facts::{ModuleFacts, TypeRef};
use super::syntax::*;
use crate::model::{
    kinds, Constant, Debug, Decl, Emit, Field, Module, ModuleEntry, Node, Ref, Type, TypeParam,
    UnionCaseDecl, NONE,
};
use crate::spelling::byte_offset;
use std::collections::HashMap;

/// The identity and declaration name of the prelude's `Range`, which `forRange` iterates.
const RANGE: (&str, &str) = ("@nx/prelude.nx", "Range");

/// What a name in value position stands for.
enum Target {
    Slot(u32),
    /// A declaration: module slot and name.
    Reference(u32, String),
    /// A union case without properties: module slot, union name, case name.
    Case(u32, String, String),
}

/// What `<name ...>` constructs.
enum Construction {
    Record(u32, String),
    Component(u32, String),
    Case(u32, String, String),
    /// A call by name of the callee the name's first `taken` segments stand for.
    Call(Target, usize),
    Element,
}

struct Local {
    name: String,
    slot: u32,
    ty: Option<TypeRef>,
}

/// The locals in scope in the declaration being emitted, innermost last.
#[derive(Default)]
struct Frame {
    locals: Vec<Local>,
    next_slot: u32,
}

pub(super) struct Emitter<'a> {
    /// The schema the image is written in.
    schema: u32,
    module: &'a ModuleSyntax,
    own: &'a ModuleFacts,
    linked: &'a HashMap<String, ModuleFacts>,
    strings: Vec<String>,
    string_index: HashMap<String, u32>,
    types: Vec<Type>,
    type_index: HashMap<Vec<u32>, u32>,
    constants: Vec<Constant>,
    constant_index: HashMap<(u32, u64), u32>,
    nodes: Vec<Node>,
    element_ids: u32,
    frame: Frame,
}

impl<'a> Emitter<'a> {
    pub fn new(
        schema: u32,
        module: &'a ModuleSyntax,
        own: &'a ModuleFacts,
        linked: &'a HashMap<String, ModuleFacts>,
    ) -> Emitter<'a> {
        Emitter {
            schema,
            module,
            own,
            linked,
            strings: Vec::new(),
            string_index: HashMap::new(),
            types: Vec::new(),
            type_index: HashMap::new(),
            constants: Vec::new(),
            constant_index: HashMap::new(),
            nodes: Vec::new(),
            element_ids: 0,
            frame: Frame::default(),
        }
    }

    /// The whole image model; `source` adds the debug section.
    pub fn module(mut self, version: &str, source: Option<&str>) -> ParseResult<Module> {
        let syntax = self.module;
        let declarations = syntax
            .declarations
            .iter()
            .map(|d| self.declaration(d))
            .collect::<ParseResult<Vec<_>>>()?;
        let mut modules = vec![(syntax.identity.as_str(), version, syntax.fingerprint)];
        modules.extend(
            syntax
                .links
                .iter()
                .map(|l| (l.identity.as_str(), l.version.as_str(), l.fingerprint)),
        );
        let modules = modules
            .into_iter()
            .map(|(identity, version, fingerprint)| ModuleEntry {
                identity: self.string(identity),
                version: self.string(version),
                fingerprint,
            })
            .collect();
        let abi = self.string(kinds::RUNTIME_ABI);
        let features = syntax
            .features
            .iter()
            .map(|feature| self.string(feature))
            .collect();
        let function_entrypoints =
            self.entrypoints(&syntax.function_entrypoints, kinds::declaration::FUNCTION)?;
        let component_entrypoints =
            self.entrypoints(&syntax.component_entrypoints, kinds::declaration::COMPONENT)?;
        let debug = match source {
            Some(source) => Some(Debug {
                declaration_spans: syntax
                    .declarations
                    .iter()
                    .map(|d| d.span.map(|span| source_span(source, &span)).transpose())
                    .collect::<ParseResult<_>>()?,
                node_spans: vec![None; self.nodes.len()],
                source: source.to_string(),
            }),
            None => None,
        };
        Ok(Module {
            schema: self.schema,
            strings: self.strings,
            abi,
            features,
            modules,
            function_entrypoints,
            component_entrypoints,
            types: self.types,
            constants: self.constants,
            nodes: self.nodes,
            declarations,
            debug,
        })
    }

    /// Refuses `what` (written at `at`) when the image is schema 5: only schema 6 has it.
    /// `feature`: the required feature that comes with it, if any.
    pub(super) fn schema_6_only(&self, at: Pos, what: &str, feature: Option<&str>) -> ParseResult<()> {
        if self.schema >= kinds::SCHEMA_6 {
            return Ok(());
        }
        let feature = feature.map_or(String::new(), |feature| format!(" (feature {feature})"));
        Err(error_at(
            at,
            format!("{what} is schema 6{feature}, but the text is assembled as schema 5"),
        ))
    }

    fn entrypoints(&self, names: &[(String, Pos)], kind: u32) -> ParseResult<Vec<u32>> {
        names
            .iter()
            .map(|(name, at)| {
                self.module
                    .declarations
                    .iter()
                    .zip(0..)
                    .find(|(d, _)| d.name == *name && declaration_kind(&d.kind) == kind)
                    .map(|(_, index)| index)
                    .ok_or_else(|| {
                        error_at(
                            *at,
                            format!("no declaration of that kind is named `{name}`"),
                        )
                    })
            })
            .collect()
    }

    fn string(&mut self, text: &str) -> u32 {
        if let Some(&index) = self.string_index.get(text) {
            return index;
        }
        let index = self.strings.len() as u32;
        self.strings.push(text.to_string());
        self.string_index.insert(text.to_string(), index);
        index
    }

    fn node(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        self.nodes.len() as u32 - 1
    }

    fn constant(&mut self, constant: Constant) -> u32 {
        let key = match constant {
            Constant::Int(value) => (kinds::constant::INT, value as u64),
            Constant::BigInt { digits } => (kinds::constant::BIGINT, u64::from(digits)),
            Constant::Float(value) => (kinds::constant::FLOAT, value.to_bits()),
        };
        *self.constant_index.entry(key).or_insert_with(|| {
            self.constants.push(constant);
            self.constants.len() as u32 - 1
        })
    }

    // ----- declarations -----

    fn declaration(&mut self, declaration: &DeclSyntax) -> ParseResult<Decl> {
        let name = self.string(&declaration.name);
        self.frame = Frame::default();
        Ok(match &declaration.kind {
            DeclKind::Function {
                params,
                result,
                optional_result,
                body,
            } => {
                let params = self.fields(params, true)?;
                let body = self.expr(body)?;
                let result = result.as_ref().map(|ty| self.ty(ty)).transpose()?;
                let result_flags = if *optional_result {
                    kinds::flags::RESULT_OPTIONAL
                } else {
                    0
                };
                Decl::Function {
                    name,
                    params,
                    body,
                    result,
                    result_flags,
                }
            }
            DeclKind::Value { ty, init } => {
                let init = self.expr(init)?;
                let ty = ty.as_ref().map(|ty| self.ty(ty)).transpose()?;
                Decl::Value { name, init, ty }
            }
            DeclKind::Record {
                is_abstract,
                bases,
                update_of,
                fields,
            } => {
                let fields = self.fields(fields, false)?;
                let bases = self.references(bases)?;
                let update_target = update_of
                    .as_ref()
                    .map(|target| self.reference(target))
                    .transpose()?;
                Decl::Record {
                    name,
                    fields,
                    bases,
                    is_abstract: u32::from(*is_abstract),
                    update_target,
                }
            }
            DeclKind::Component {
                flags,
                state_record,
                props,
                state,
                emits,
                body,
            } => {
                let props = self.fields(props, false)?;
                let state = self.fields(state, false)?;
                let body = body.as_ref().map(|body| self.expr(body)).transpose()?;
                let emits = emits
                    .iter()
                    .map(|(emit, action)| {
                        let name = self.string(emit);
                        Ok(Emit {
                            name,
                            action: self.reference(action)?,
                        })
                    })
                    .collect::<ParseResult<_>>()?;
                let state_record = match state_record {
                    Some(record) => {
                        self.schema_6_only(record.at, "a component's state record", None)?;
                        Some(self.reference(record)?)
                    }
                    None => None,
                };
                Decl::Component {
                    name,
                    props,
                    state,
                    body,
                    flags: *flags,
                    emits,
                    state_record,
                }
            }
            DeclKind::Union {
                bases,
                property_of,
                cases,
            } => {
                let cases = cases
                    .iter()
                    .map(|case| {
                        self.frame = Frame::default();
                        let name = self.string(&case.name);
                        let fields = self.fields(&case.fields, false)?;
                        Ok(UnionCaseDecl {
                            name,
                            fields,
                            is_constant: u32::from(case.constant),
                        })
                    })
                    .collect::<ParseResult<_>>()?;
                let bases = self.references(bases)?;
                let property_target = property_of
                    .as_ref()
                    .map(|target| self.reference(target))
                    .transpose()?;
                Decl::Union {
                    name,
                    cases,
                    bases,
                    property_target,
                }
            }
            DeclKind::Alias => Decl::TypeAlias { name },
        })
    }

    fn bind(&mut self, name: &str, ty: Option<TypeRef>) -> u32 {
        let slot = self.frame.next_slot;
        self.frame.next_slot += 1;
        self.frame.locals.push(Local {
            name: name.to_string(),
            slot,
            ty,
        });
        slot
    }

    /// Fields (or parameters) in order, each bound to the frame's next slot once its default is
    /// emitted: a default reads the fields before it, not its own name (which may be a type's).
    fn fields(&mut self, fields: &[FieldSyntax], parameters: bool) -> ParseResult<Vec<Field>> {
        let mut emitted = Vec::with_capacity(fields.len());
        for field in fields {
            let name = self.string(&field.name);
            let optional = parameters && field.flags & kinds::flags::PARAM_OPTIONAL != 0;
            let ty = if optional {
                self.ty(&read_type(&field.ty))?
            } else {
                self.ty(&field.ty)?
            };
            let default = field.default.as_ref().map(|d| self.expr(d)).transpose()?;
            let nominal = self.nominal(&field.ty);
            self.bind(&field.name, nominal);
            emitted.push(Field {
                name,
                ty,
                default,
                flags: field.flags,
            });
        }
        Ok(emitted)
    }

    fn references(&mut self, names: &[Name]) -> ParseResult<Vec<Ref>> {
        names.iter().map(|name| self.reference(name)).collect()
    }

    /// A reference to a declaration named in full; one in the own module must exist.
    fn reference(&mut self, name: &Name) -> ParseResult<Ref> {
        let slot = self.module_slot(name);
        let joined = name.joined();
        if slot == 0 && !self.own.declarations.contains_key(&joined) {
            return Err(error_at(
                name.at,
                format!("the module declares no `{joined}`"),
            ));
        }
        Ok(Ref {
            slot,
            name: self.string(&joined),
        })
    }

    fn module_slot(&self, name: &Name) -> u32 {
        let Some(identity) = &name.module else {
            return 0;
        };
        (self
            .module
            .links
            .iter()
            .position(|link| &link.identity == identity))
        .map_or(0, |at| at as u32 + 1)
    }

    // ----- types -----

    fn ty(&mut self, ty: &TypeSyntax) -> ParseResult<u32> {
        let entry = match ty {
            TypeSyntax::Named(name) => {
                let joined = name.joined();
                if name.module.is_some() || self.own.declarations.contains_key(&joined) {
                    Type::Nominal(self.reference(name)?)
                } else {
                    Type::Primitive {
                        name: self.string(&joined),
                    }
                }
            }
            TypeSyntax::Seq(item, occurrence) => Type::Seq {
                item: self.ty(item)?,
                occurrence: *occurrence,
            },
            TypeSyntax::Function { params, result } => {
                let result = self.ty(result)?;
                let params = params
                    .iter()
                    .map(|param| {
                        let name = self.string(&param.name);
                        let ty = if param.flags & kinds::flags::PARAM_OPTIONAL != 0 {
                            self.ty(&read_type(&param.ty))?
                        } else {
                            self.ty(&param.ty)?
                        };
                        Ok(TypeParam {
                            name,
                            ty,
                            flags: param.flags,
                        })
                    })
                    .collect::<ParseResult<_>>()?;
                Type::Function { result, params }
            }
            TypeSyntax::AnyFunction(result) => Type::AnyFunction {
                result: self.ty(result)?,
            },
            TypeSyntax::Constrained { base, interval, at } => {
                self.schema_6_only(
                    *at,
                    "a constrained type (`where`)",
                    Some(kinds::CONSTRAINTS_FEATURE),
                )?;
                let base = self.ty(base)?;
                self.constrained(base, interval)
            }
        };
        Ok(self.type_entry(entry))
    }

    /// The constrained type narrowing type `base` to `interval`, its bounds numbered as
    /// constants low first.
    fn constrained(&mut self, base: u32, interval: &IntervalSyntax) -> Type {
        let mut bound = |number: &Option<NumberSyntax>| {
            number.as_ref().map(|number| {
                let constant = match number {
                    NumberSyntax::Int(value) => Constant::Int(*value),
                    NumberSyntax::BigInt(digits) => Constant::BigInt {
                        digits: self.string(digits),
                    },
                    NumberSyntax::Float(value) => Constant::Float(*value),
                };
                self.constant(constant)
            })
        };
        let low = bound(&interval.low);
        let high = bound(&interval.high);
        let flags = if interval.low_exclusive {
            kinds::ty::CONSTRAINED_LOW_EXCLUSIVE
        } else {
            0
        } | if interval.high_exclusive {
            kinds::ty::CONSTRAINED_HIGH_EXCLUSIVE
        } else {
            0
        };
        Type::Constrained {
            base,
            low,
            high,
            flags,
        }
    }

    /// The number of type `entry`, deduplicated.
    fn type_entry(&mut self, entry: Type) -> u32 {
        let key = type_cells(&entry);
        *self.type_index.entry(key).or_insert_with(|| {
            self.types.push(entry);
            self.types.len() as u32 - 1
        })
    }

    /// The nominal type a written type names, if it names one without a suffix.
    fn nominal(&self, ty: &TypeSyntax) -> Option<TypeRef> {
        let TypeSyntax::Named(name) = ty else {
            return None;
        };
        let joined = name.joined();
        match &name.module {
            Some(identity) => Some((identity.clone(), joined)),
            None if self.own.declarations.contains_key(&joined) => {
                Some((self.module.identity.clone(), joined))
            }
            None => None,
        }
    }
}

fn declaration_kind(kind: &DeclKind) -> u32 {
    use kinds::declaration as k;
    match kind {
        DeclKind::Function { .. } => k::FUNCTION,
        DeclKind::Value { .. } => k::VALUE,
        DeclKind::Record { .. } => k::RECORD,
        DeclKind::Component { .. } => k::COMPONENT,
        DeclKind::Union { .. } => k::UNION,
        DeclKind::Alias => k::TYPE_ALIAS,
    }
}

/// The read type of an optional parameter from its declared type: `T?`, or `T*` for `T+`.
fn read_type(declared: &TypeSyntax) -> TypeSyntax {
    match declared {
        TypeSyntax::Seq(item, 2) => TypeSyntax::Seq(item.clone(), 3),
        TypeSyntax::Seq(..) => declared.clone(),
        other => TypeSyntax::Seq(Box::new(other.clone()), 1),
    }
}

/// A type entry's cells after its kind, which identify it for deduplication.
fn type_cells(ty: &Type) -> Vec<u32> {
    match ty {
        Type::Primitive { name } => vec![kinds::ty::PRIMITIVE, *name],
        Type::Nominal(r) => vec![kinds::ty::NOMINAL, r.slot, r.name],
        Type::Seq { item, occurrence } => vec![kinds::ty::SEQ, *item, *occurrence],
        Type::AnyFunction { result } => vec![kinds::ty::ANY_FUNCTION, *result],
        Type::Constrained {
            base,
            low,
            high,
            flags,
        } => vec![
            kinds::ty::CONSTRAINED,
            *base,
            low.unwrap_or(NONE),
            high.unwrap_or(NONE),
            *flags,
        ],
        Type::Function { result, params } => {
            let mut cells = vec![kinds::ty::FUNCTION, *result, params.len() as u32];
            cells.extend(params.iter().flat_map(|p| [p.name, p.ty, p.flags]));
            cells
        }
    }
}

/// A declaration span's byte offsets in `source`.
fn source_span(source: &str, span: &SpanSyntax) -> ParseResult<(u32, u32)> {
    let offset = |at: Pos| {
        byte_offset(source, at.line, at.column)
            .and_then(|offset| u32::try_from(offset).ok())
            .ok_or_else(|| {
                error_at(
                    span.at,
                    format!("{}:{} is not a position in the source", at.line, at.column),
                )
            })
    };
    Ok((offset(span.start)?, offset(span.end)?))
}
