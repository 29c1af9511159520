//! Expressions as nodes, each appended once its operands are, in layout order.

use super::{Construction, Emitter, Local, Target, RANGE};
use crate::assemble::cursor::{error_at, ParseResult};
use crate::assemble::syntax::{Expr, ExprKind, Name, NumberSyntax, Pos, TypeSyntax};
use crate::model::{kinds, Arm, Constant, Loop, Node, Prop, Ref};

/// How the text writes a spread property's key.
const SPREAD_KEY: &str = "...";

impl Emitter<'_> {
    pub(super) fn exprs(&mut self, exprs: &[Expr]) -> ParseResult<Vec<u32>> {
        exprs.iter().map(|expr| self.expr(expr)).collect()
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> ParseResult<u32> {
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
            ExprKind::Check { site, operand, ty } => {
                self.schema_6_only(expr.at, "a `check`", Some(kinds::CONSTRAINTS_FEATURE))?;
                let operand = self.expr(operand)?;
                let ty = self.ty(ty)?;
                Node::Check {
                    operand,
                    ty,
                    site: self.string(site),
                }
            }
            ExprKind::Interval(interval) => {
                self.schema_6_only(
                    expr.at,
                    "an interval pattern",
                    Some(kinds::CONSTRAINTS_FEATURE),
                )?;
                // The text does not spell the base: `int` for integer bounds, else `float64`.
                let integral = [&interval.low, &interval.high]
                    .into_iter()
                    .flatten()
                    .all(|bound| !matches!(bound, NumberSyntax::Float(_)));
                let base = Name {
                    module: None,
                    path: vec![if integral { "int" } else { "float64" }.to_string()],
                    at: expr.at,
                };
                let base = self.ty(&TypeSyntax::Named(base))?;
                let ty = self.constrained(base, interval);
                Node::Interval {
                    ty: self.type_entry(ty),
                }
            }
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
    pub(super) fn name(&mut self, name: &Name) -> ParseResult<u32> {
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

    pub(super) fn target(&mut self, target: Target, first: &str) -> u32 {
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

    pub(super) fn members(&mut self, mut base: u32, members: &[String]) -> u32 {
        for member in members {
            let member = self.string(member);
            base = self.node(Node::Member { base, member });
        }
        base
    }

    pub(super) fn call(
        &mut self,
        at: Pos,
        callee: &Expr,
        args: &[Option<Expr>],
        ordering: &[String],
    ) -> ParseResult<Node> {
        if let Some(node) = self.standard_call(at, callee, args, ordering)? {
            return Ok(node);
        }
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

    /// `math.op(args)` and `color.op(args)`, where no local or declaration is named `math` or
    /// `color`: a standard operation (schema 6). `None` for any other call.
    fn standard_call(
        &mut self,
        at: Pos,
        callee: &Expr,
        args: &[Option<Expr>],
        ordering: &[String],
    ) -> ParseResult<Option<Node>> {
        let ExprKind::Name(Name {
            module: None, path, ..
        }) = &callee.kind
        else {
            return Ok(None);
        };
        let [namespace, operation] = path.as_slice() else {
            return Ok(None);
        };
        let (names, what, feature): (&[&str], _, _) = match namespace.as_str() {
            "math" => (
                &kinds::STANDARD_MATH_OPERATIONS,
                "math",
                kinds::STANDARD_MATH_FEATURE,
            ),
            "color" => (
                &kinds::STANDARD_COLOR_OPERATIONS,
                "colour",
                kinds::STANDARD_COLOR_FEATURE,
            ),
            _ => return Ok(None),
        };
        if self.local(namespace).is_some() || self.own.declarations.contains_key(namespace) {
            return Ok(None);
        }
        let described = format!("`{namespace}.{operation}(...)` (a standard {what} operation)");
        self.schema_6_only(at, &described, Some(feature))?;
        let op = names
            .iter()
            .position(|name| name == operation)
            .ok_or_else(|| {
                error_at(
                    at,
                    format!("`{namespace}.{operation}` is not a standard {what} operation"),
                )
            })? as u32;
        if !ordering.is_empty() {
            return Err(error_at(at, "only an intrinsic call takes an `ordering`"));
        }
        let args = args
            .iter()
            .map(|arg| match arg {
                Some(arg) => self.expr(arg),
                None => Err(error_at(
                    at,
                    format!("a standard {what} operation takes no left-out argument"),
                )),
            })
            .collect::<ParseResult<_>>()?;
        Ok(Some(if namespace == "math" {
            Node::StandardMath { op, args }
        } else {
            Node::StandardColor { op, args }
        }))
    }

    pub(super) fn each(
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

    pub(super) fn construct(
        &mut self,
        at: Pos,
        name: &Name,
        tag: &str,
        props: &[(String, Expr)],
        content: &[Expr],
    ) -> ParseResult<Node> {
        let construction = self.construction(name)?;
        let mut sorted: Vec<&(String, Expr)> = props.iter().collect();
        // A spread keeps the written order: a later property overrides an earlier one.
        if !props.iter().any(|(key, _)| key == SPREAD_KEY) {
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
        }
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

    pub(super) fn properties(
        &mut self,
        props: &[&(String, Expr)],
        content: &[Expr],
    ) -> ParseResult<(Vec<Prop>, Vec<u32>)> {
        let props = props
            .iter()
            .map(|(key, value)| {
                let name = if key == SPREAD_KEY {
                    self.schema_6_only(
                        value.at,
                        "a spread (`...=`)",
                        Some(kinds::CONDITIONAL_PROPERTIES_FEATURE),
                    )?;
                    self.string(kinds::SPREAD_PROPERTY)
                } else {
                    self.string(key)
                };
                Ok(Prop {
                    name,
                    value: self.expr(value)?,
                })
            })
            .collect::<ParseResult<_>>()?;
        Ok((props, self.exprs(content)?))
    }
}
