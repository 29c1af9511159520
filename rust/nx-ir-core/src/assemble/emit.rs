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

use super::cursor::{error_at, ParseResult};
use super::facts::{ModuleFacts, TypeRef};
use super::syntax::*;
use crate::model::{
    kinds, Arm, Constant, Debug, Decl, Emit, Field, Loop, Module, ModuleEntry, Node, Prop, Ref,
    Type, TypeParam, UnionCaseDecl,
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
        module: &'a ModuleSyntax,
        own: &'a ModuleFacts,
        linked: &'a HashMap<String, ModuleFacts>,
    ) -> Emitter<'a> {
        Emitter {
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
                self.bind_fields(params);
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
                self.bind_fields(fields);
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
                props,
                state,
                emits,
                body,
            } => {
                self.bind_fields(props);
                self.bind_fields(state);
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
                Decl::Component {
                    name,
                    props,
                    state,
                    body,
                    flags: *flags,
                    emits,
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
                        self.bind_fields(&case.fields);
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

    /// Binds fields (or parameters) to the frame's next slots.
    fn bind_fields(&mut self, fields: &[FieldSyntax]) {
        for field in fields {
            let ty = self.nominal(&field.ty);
            self.bind(&field.name, ty);
        }
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

    fn fields(&mut self, fields: &[FieldSyntax], parameters: bool) -> ParseResult<Vec<Field>> {
        fields
            .iter()
            .map(|field| {
                let name = self.string(&field.name);
                let optional = parameters && field.flags & kinds::flags::PARAM_OPTIONAL != 0;
                let ty = if optional {
                    self.ty(&read_type(&field.ty))?
                } else {
                    self.ty(&field.ty)?
                };
                let default = field.default.as_ref().map(|d| self.expr(d)).transpose()?;
                Ok(Field {
                    name,
                    ty,
                    default,
                    flags: field.flags,
                })
            })
            .collect()
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
        };
        let key = type_cells(&entry);
        Ok(*self.type_index.entry(key).or_insert_with(|| {
            self.types.push(entry);
            self.types.len() as u32 - 1
        }))
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

    // ----- name resolution -----

    fn local(&self, name: &str) -> Option<&Local> {
        self.frame
            .locals
            .iter()
            .rev()
            .find(|local| local.name == name)
    }

    /// The facts of the module a name is written in, `None` for a linked module whose text was
    /// not supplied.
    fn facts_for(&self, name: &Name) -> Option<&'a ModuleFacts> {
        match &name.module {
            None => Some(self.own),
            Some(identity) => self.linked.get(identity),
        }
    }

    fn facts_of_identity(&self, identity: &str) -> Option<&'a ModuleFacts> {
        if identity == self.module.identity {
            Some(self.own)
        } else {
            self.linked.get(identity)
        }
    }

    fn identity_of_slot(&self, slot: u32) -> &str {
        match slot.checked_sub(1) {
            None => &self.module.identity,
            Some(at) => &self.module.links[at as usize].identity,
        }
    }

    /// What a name in value position stands for, and how many of its segments that takes; the
    /// rest are members.
    fn value_target(&self, name: &Name) -> ParseResult<(Target, usize)> {
        let path = &name.path;
        if name.module.is_none() {
            if let Some(local) = self.local(&path[0]) {
                return Ok((Target::Slot(local.slot), 1));
            }
        }
        let slot = self.module_slot(name);
        let Some(facts) = self.facts_for(name) else {
            // A linked module the caller gave no text for: a capitalized first segment followed
            // by another reads as a union case, anything else as a declaration.
            let capitalized = path[0].starts_with(char::is_uppercase);
            return Ok(if capitalized && path.len() > 1 {
                (Target::Case(slot, path[0].clone(), path[1].clone()), 2)
            } else {
                (Target::Reference(slot, path[0].clone()), 1)
            });
        };
        match facts.declaration_in(path) {
            Some((taken, declaration))
                if declaration.kind == kinds::declaration::UNION && taken < path.len() =>
            {
                Ok((
                    Target::Case(slot, path[..taken].join("."), path[taken].clone()),
                    taken + 1,
                ))
            }
            Some((taken, _)) => Ok((Target::Reference(slot, path[..taken].join(".")), taken)),
            None => Err(error_at(name.at, unknown_name(name))),
        }
    }

    fn construction(&self, name: &Name) -> ParseResult<Construction> {
        use kinds::declaration as kind;
        let path = &name.path;
        if name.module.is_none() {
            if let Some(local) = self.local(&path[0]) {
                return Ok(Construction::Call(Target::Slot(local.slot), 1));
            }
        }
        let slot = self.module_slot(name);
        let Some(facts) = self.facts_for(name) else {
            // A linked module the caller gave no text for: `T.Update` reads as a record, another
            // dotted name as a union case, a lower-case name as a function and any other as a
            // component.
            let joined = name.joined();
            return Ok(match path.as_slice() {
                [_, last] if last == "Update" => Construction::Record(slot, joined),
                [.., last] if path.len() > 1 => {
                    Construction::Case(slot, path[..path.len() - 1].join("."), last.clone())
                }
                [first] if first.starts_with(char::is_lowercase) => {
                    Construction::Call(Target::Reference(slot, joined), 1)
                }
                _ => Construction::Component(slot, joined),
            });
        };
        let Some((taken, declaration)) = facts.declaration_in(path) else {
            return match name.module {
                None => Ok(Construction::Element),
                Some(_) => Err(error_at(name.at, unknown_name(name))),
            };
        };
        let joined = path[..taken].join(".");
        Ok(match declaration.kind {
            kind::UNION if taken + 1 == path.len() => {
                Construction::Case(slot, joined, path[taken].clone())
            }
            kind::RECORD if taken == path.len() => Construction::Record(slot, joined),
            kind::COMPONENT if taken == path.len() => Construction::Component(slot, joined),
            kind::FUNCTION | kind::VALUE => {
                Construction::Call(Target::Reference(slot, joined), taken)
            }
            _ => {
                return Err(error_at(
                    name.at,
                    format!("`{}` cannot be constructed", name.joined()),
                ))
            }
        })
    }

    /// The nominal type an expression has, as far as the declarations tell: what a `for` needs to
    /// know whether it iterates a `Range`.
    fn static_type(&self, expr: &Expr) -> Option<TypeRef> {
        match &expr.kind {
            ExprKind::Construct { name, .. } => match self.construction(name).ok()? {
                Construction::Record(slot, name) | Construction::Component(slot, name) => {
                    Some((self.identity_of_slot(slot).to_string(), name))
                }
                _ => None,
            },
            ExprKind::Name(name) => {
                let (target, taken) = self.value_target(name).ok()?;
                let ty = match target {
                    Target::Slot(slot) => self
                        .frame
                        .locals
                        .iter()
                        .rev()
                        .find(|l| l.slot == slot)?
                        .ty
                        .clone(),
                    Target::Reference(slot, declared) => {
                        let declaration = self.declaration_facts(slot, &declared)?;
                        (declaration.kind == kinds::declaration::VALUE)
                            .then(|| declaration.ty.clone())?
                    }
                    Target::Case(..) => None,
                }?;
                name.path[taken..]
                    .iter()
                    .try_fold(ty, |ty, member| self.field_type(&ty, member))
            }
            ExprKind::Call { callee, .. } => {
                let ExprKind::Name(name) = &callee.kind else {
                    return None;
                };
                match self.value_target(name).ok()? {
                    (Target::Reference(slot, declared), taken) if taken == name.path.len() => {
                        let declaration = self.declaration_facts(slot, &declared)?;
                        (declaration.kind == kinds::declaration::FUNCTION)
                            .then(|| declaration.ty.clone())?
                    }
                    _ => None,
                }
            }
            ExprKind::Member { base, name } => self.field_type(&self.static_type(base)?, name),
            _ => None,
        }
    }

    fn declaration_facts(&self, slot: u32, name: &str) -> Option<&'a super::facts::DeclFacts> {
        self.facts_of_identity(self.identity_of_slot(slot))?
            .declarations
            .get(name)
    }

    fn field_type(&self, owner: &TypeRef, field: &str) -> Option<TypeRef> {
        self.facts_of_identity(&owner.0)?
            .declarations
            .get(&owner.1)?
            .fields
            .get(field)?
            .clone()
    }

    // ----- nodes -----

    fn exprs(&mut self, exprs: &[Expr]) -> ParseResult<Vec<u32>> {
        exprs.iter().map(|expr| self.expr(expr)).collect()
    }

    fn expr(&mut self, expr: &Expr) -> ParseResult<u32> {
        let node = match &expr.kind {
            ExprKind::Bool(value) => Node::Bool {
                value: u32::from(*value),
            },
            ExprKind::Str(value) => Node::String {
                value: self.string(value),
            },
            ExprKind::Int(value) => Node::Number {
                constant: self.constant(Constant::Int(*value)),
            },
            ExprKind::BigInt(digits) => {
                let digits = self.string(digits);
                Node::Number {
                    constant: self.constant(Constant::BigInt { digits }),
                }
            }
            ExprKind::Float(value) => Node::Number {
                constant: self.constant(Constant::Float(*value)),
            },
            ExprKind::Name(name) => return self.name(name),
            ExprKind::Binary { op, lhs, rhs } => Node::Binary {
                op: *op,
                lhs: self.expr(lhs)?,
                rhs: self.expr(rhs)?,
            },
            ExprKind::Coalesce { lhs, rhs } => Node::Coalesce {
                left: self.expr(lhs)?,
                right: self.expr(rhs)?,
            },
            ExprKind::Unary { op, operand } => Node::Unary {
                op: *op,
                operand: self.expr(operand)?,
            },
            ExprKind::Call {
                callee,
                args,
                ordering,
            } => self.call(expr.at, callee, args, ordering)?,
            ExprKind::Text { type_name, operand } => {
                let operand = self.expr(operand)?;
                Node::Text {
                    operand,
                    type_name: self.string(type_name),
                }
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => Node::If {
                cond: self.expr(cond)?,
                then: self.expr(then)?,
                otherwise: otherwise.as_deref().map(|e| self.expr(e)).transpose()?,
            },
            ExprKind::IfIs {
                scrutinee,
                arms,
                otherwise,
            } => {
                let scrutinee = self.expr(scrutinee)?;
                let arms = arms
                    .iter()
                    .map(|(patterns, body)| {
                        Ok(Arm {
                            patterns: self.exprs(patterns)?,
                            body: self.expr(body)?,
                        })
                    })
                    .collect::<ParseResult<_>>()?;
                let otherwise = otherwise.as_deref().map(|e| self.expr(e)).transpose()?;
                Node::IfIs {
                    scrutinee,
                    arms,
                    otherwise,
                }
            }
            ExprKind::Array(items) => Node::Array {
                items: self.exprs(items)?,
            },
            ExprKind::For {
                item,
                index,
                iterable,
                body,
            } => self.each(item, index.as_deref(), iterable, body)?,
            ExprKind::Member { base, name } => {
                let base = self.expr(base)?;
                Node::Member {
                    base,
                    member: self.string(name),
                }
            }
            ExprKind::OptionalMember { base, name } => {
                let base = self.expr(base)?;
                Node::OptionalMember {
                    base,
                    member: self.string(name),
                }
            }
            ExprKind::Exists(operand) => Node::Exists {
                operand: self.expr(operand)?,
            },
            ExprKind::Construct {
                name,
                tag,
                props,
                content,
            } => self.construct(expr.at, name, tag, props, content)?,
            ExprKind::Handler {
                component,
                emit,
                slot,
                action,
                owner,
                body,
            } => {
                let component = self.reference(component)?;
                let emit = self.string(emit);
                let action_type = Some((
                    self.identity_of_slot(self.module_slot(action)).to_string(),
                    action.joined(),
                ));
                let action = self.reference(action)?;
                let owner = owner
                    .as_ref()
                    .map(|owner| self.reference(owner))
                    .transpose()?;
                self.frame.next_slot = self.frame.next_slot.max(slot.saturating_add(1));
                self.frame.locals.push(Local {
                    name: "action".to_string(),
                    slot: *slot,
                    ty: action_type,
                });
                let body = self.expr(body);
                self.frame.locals.pop();
                Node::ActionHandler {
                    component,
                    emit,
                    action,
                    binding: *slot,
                    owner,
                    body: body?,
                }
            }
        };
        Ok(self.node(node))
    }

    /// A name in value position: a slot, declaration or union case, then its members.
    fn name(&mut self, name: &Name) -> ParseResult<u32> {
        if name.module.is_none() && name.path.len() == 1 && self.local(&name.path[0]).is_none() {
            let special = match name.path[0].as_str() {
                "NaN" => Some(f64::NAN),
                "inf" => Some(f64::INFINITY),
                _ => None,
            };
            if let Some(value) =
                special.filter(|_| !self.own.declarations.contains_key(&name.path[0]))
            {
                let constant = self.constant(Constant::Float(value));
                return Ok(self.node(Node::Number { constant }));
            }
        }
        let (target, taken) = self.value_target(name)?;
        let base = self.target(target, &name.path[0]);
        Ok(self.members(base, &name.path[taken..]))
    }

    fn target(&mut self, target: Target, first: &str) -> u32 {
        let node = match target {
            Target::Slot(slot) => Node::Slot {
                slot,
                name: self.string(first),
            },
            Target::Reference(slot, declared) => Node::Reference(Ref {
                slot,
                name: self.string(&declared),
            }),
            Target::Case(slot, union, case) => Node::UnionCase {
                union: Ref {
                    slot,
                    name: self.string(&union),
                },
                case: self.string(&case),
                props: Vec::new(),
                content: Vec::new(),
            },
        };
        self.node(node)
    }

    fn members(&mut self, mut base: u32, members: &[String]) -> u32 {
        for member in members {
            let member = self.string(member);
            base = self.node(Node::Member { base, member });
        }
        base
    }

    fn call(
        &mut self,
        at: Pos,
        callee: &Expr,
        args: &[Option<Expr>],
        ordering: &[String],
    ) -> ParseResult<Node> {
        let intrinsic = match &callee.kind {
            ExprKind::Name(Name {
                module: None, path, ..
            }) if path.len() == 1
                && self.local(&path[0]).is_none()
                && !self.own.declarations.contains_key(&path[0]) =>
            {
                kinds::INTRINSICS.iter().position(|name| *name == path[0])
            }
            _ => None,
        };
        let Some(op) = intrinsic else {
            if !ordering.is_empty() {
                return Err(error_at(at, "only an intrinsic call takes an `ordering`"));
            }
            let callee = self.expr(callee)?;
            let args = args
                .iter()
                .map(|arg| arg.as_ref().map(|a| self.expr(a)).transpose())
                .collect::<ParseResult<_>>()?;
            return Ok(Node::Call { callee, args });
        };
        let args = args
            .iter()
            .map(|arg| match arg {
                Some(arg) => self.expr(arg),
                None => Err(error_at(at, "an intrinsic takes no left-out argument")),
            })
            .collect::<ParseResult<_>>()?;
        let order = ordering.iter().map(|name| self.string(name)).collect();
        Ok(Node::Intrinsic {
            op: op as u32,
            args,
            order,
        })
    }

    fn each(
        &mut self,
        item: &str,
        index: Option<&str>,
        iterable: &Expr,
        body: &Expr,
    ) -> ParseResult<Node> {
        let is_range = self
            .static_type(iterable)
            .is_some_and(|(identity, name)| (identity.as_str(), name.as_str()) == RANGE);
        let item_slot = self.frame.next_slot;
        let index_slot = index.map(|_| item_slot + 1);
        self.frame.next_slot += 1 + u32::from(index.is_some());
        let item_name = self.string(item);
        let index_name = index.map(|index| self.string(index));
        let iterable = self.expr(iterable)?;
        let scope = self.frame.locals.len();
        self.frame.locals.push(Local {
            name: item.to_string(),
            slot: item_slot,
            ty: None,
        });
        if let (Some(index), Some(slot)) = (index, index_slot) {
            self.frame.locals.push(Local {
                name: index.to_string(),
                slot,
                ty: None,
            });
        }
        let body = self.expr(body);
        self.frame.locals.truncate(scope);
        let each = Loop {
            item_slot,
            item_name,
            index_slot,
            index_name,
            iterable,
            body: body?,
        };
        Ok(if is_range {
            Node::ForRange(each)
        } else {
            Node::For(each)
        })
    }

    fn construct(
        &mut self,
        at: Pos,
        name: &Name,
        tag: &str,
        props: &[(String, Expr)],
        content: &[Expr],
    ) -> ParseResult<Node> {
        let construction = self.construction(name)?;
        let mut sorted: Vec<&(String, Expr)> = props.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(match construction {
            Construction::Record(slot, declared) => {
                let target = Ref {
                    slot,
                    name: self.string(&declared),
                };
                let (props, content) = self.properties(&sorted, content)?;
                Node::Record {
                    target,
                    props,
                    content,
                }
            }
            Construction::Component(slot, declared) => {
                let target = Ref {
                    slot,
                    name: self.string(&declared),
                };
                let (props, content) = self.properties(&sorted, content)?;
                Node::Component {
                    target,
                    props,
                    content,
                }
            }
            Construction::Case(slot, union, case) => {
                let union = Ref {
                    slot,
                    name: self.string(&union),
                };
                let case = self.string(&case);
                let (props, content) = self.properties(&sorted, content)?;
                Node::UnionCase {
                    union,
                    case,
                    props,
                    content,
                }
            }
            Construction::Element => {
                let id = self.element_ids;
                self.element_ids += 1;
                let tag = self.string(tag);
                let (props, content) = self.properties(&sorted, content)?;
                Node::Element {
                    id,
                    tag,
                    props,
                    content,
                }
            }
            Construction::Call(target, taken) => {
                if !content.is_empty() {
                    return Err(error_at(at, "a call by name takes no content"));
                }
                let base = self.target(target, &name.path[0]);
                let callee = self.members(base, &name.path[taken..]);
                let (args, _) = self.properties(&sorted, &[])?;
                Node::NamedCall { callee, args }
            }
        })
    }

    fn properties(
        &mut self,
        props: &[&(String, Expr)],
        content: &[Expr],
    ) -> ParseResult<(Vec<Prop>, Vec<u32>)> {
        let props = props
            .iter()
            .map(|(key, value)| {
                let name = self.string(key);
                Ok(Prop {
                    name,
                    value: self.expr(value)?,
                })
            })
            .collect::<ParseResult<_>>()?;
        Ok((props, self.exprs(content)?))
    }
}

fn unknown_name(name: &Name) -> String {
    match &name.module {
        None => format!("no local or declaration is named `{}`", name.path[0]),
        Some(identity) => format!("`{identity}` declares no `{}`", name.joined()),
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
