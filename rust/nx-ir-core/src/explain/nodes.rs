//! Nodes as indented expression trees: operators spelled by name inside parentheses, calls as
//! `f(a, b)`, constructions as NX elements, and the block forms (`if`, `for`, handlers) with their
//! bodies on indented lines.

use super::layout::{call, group, indent, prefix, suffix, Lines};
use super::{malformed, Explainer};
use crate::error::IrResult;
use crate::model::{kinds, Constant, Node, Prop};
use crate::spelling::{float_text, quote};

/// How deep a rendering may nest before the model is taken for cyclic.
pub(super) const MAX_DEPTH: usize = 1000;

fn operator_name(names: &'static [&'static str], code: u32, what: &str) -> IrResult<&'static str> {
    names
        .get(code as usize)
        .copied()
        .ok_or_else(|| malformed(format!("unknown {what} {code}")))
}

impl Explainer<'_> {
    pub(super) fn node(&self, index: u32) -> IrResult<Lines> {
        self.node_at_depth(index, 0)
    }

    fn nodes(&self, indices: &[u32], depth: usize) -> IrResult<Vec<Lines>> {
        indices
            .iter()
            .map(|&index| self.node_at_depth(index, depth))
            .collect()
    }

    fn node_at_depth(&self, index: u32, depth: usize) -> IrResult<Lines> {
        if depth > MAX_DEPTH {
            return Err(malformed("nodes nest too deeply to explain"));
        }
        self.spend(1 + depth as u64)?;
        let depth = depth + 1;
        let node = self
            .module
            .nodes
            .get(index as usize)
            .ok_or_else(|| malformed(format!("node index {index} is out of range")))?;
        let render = |index: u32| self.node_at_depth(index, depth);
        Ok(match node {
            Node::Bool { value } => vec![(if *value != 0 { "true" } else { "false" }).to_string()],
            Node::String { value } => vec![quote(self.string(*value)?)],
            Node::Number { constant } => vec![self.constant(*constant)?],
            Node::Slot { name, .. } => vec![self.string(*name)?.to_string()],
            Node::Reference(reference) => vec![self.reference(*reference)?],
            Node::Binary { op, lhs, rhs } => {
                let op = operator_name(&kinds::BINARY_OPERATORS, *op, "binary operator")?;
                group(
                    vec![render(*lhs)?, vec![op.to_string()], render(*rhs)?],
                    "(",
                    " ",
                    ")",
                )
            }
            Node::Coalesce { left, right } => group(
                vec![render(*left)?, vec!["??".to_string()], render(*right)?],
                "(",
                " ",
                ")",
            ),
            Node::Unary { op, operand } => {
                let op = operator_name(&kinds::UNARY_OPERATORS, *op, "unary operator")?;
                prefix(&format!("{op} "), render(*operand)?)
            }
            Node::Text { operand, type_name } => call(
                &format!("text<{}>", self.string(*type_name)?),
                vec![render(*operand)?],
            ),
            Node::Call { callee, args } => {
                let args = args
                    .iter()
                    .map(|arg| match arg {
                        Some(arg) => render(*arg),
                        None => Ok(vec!["_".to_string()]),
                    })
                    .collect::<IrResult<Vec<_>>>()?;
                call(&render(*callee)?.join(" "), args)
            }
            Node::NamedCall { callee, args } => {
                self.construction(render(*callee)?.join(" "), args, &[], depth)?
            }
            Node::Intrinsic { op, args, order } => {
                let op = operator_name(&kinds::INTRINSICS, *op, "intrinsic")?;
                let lines = call(op, self.nodes(args, depth)?);
                if order.is_empty() {
                    lines
                } else {
                    suffix(
                        lines,
                        &format!(" ordering {}", self.strings(order)?.join(", ")),
                    )
                }
            }
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                let mut lines = suffix(prefix("if ", render(*cond)?), " then");
                lines.extend(indent(render(*then)?));
                if let Some(otherwise) = otherwise {
                    lines.push("else".to_string());
                    lines.extend(indent(render(*otherwise)?));
                }
                lines
            }
            Node::IfIs {
                scrutinee,
                arms,
                otherwise,
            } => {
                let mut lines = suffix(prefix("if ", render(*scrutinee)?), " is");
                for arm in arms {
                    let patterns = group(self.nodes(&arm.patterns, depth)?, "", " | ", "");
                    lines.extend(indent(suffix(patterns, " =>")));
                    lines.extend(indent(indent(render(arm.body)?)));
                }
                if let Some(otherwise) = otherwise {
                    lines.push("  else =>".to_string());
                    lines.extend(indent(indent(render(*otherwise)?)));
                }
                lines
            }
            Node::Array { items } if items.is_empty() => vec!["{}".to_string()],
            Node::Array { items } => group(self.nodes(items, depth)?, "[", ", ", "]"),
            Node::For(each) | Node::ForRange(each) => {
                let mut binding = self.string(each.item_name)?.to_string();
                if let Some(index_name) = each.index_name {
                    binding = format!("{binding}, {}", self.string(index_name)?);
                }
                let mut lines = suffix(
                    prefix(&format!("for {binding} in "), render(each.iterable)?),
                    " yield",
                );
                lines.extend(indent(render(each.body)?));
                lines
            }
            Node::Member { base, member } => {
                suffix(render(*base)?, &format!(".{}", self.string(*member)?))
            }
            Node::OptionalMember { base, member } => {
                suffix(render(*base)?, &format!("?.{}", self.string(*member)?))
            }
            Node::Exists { operand } => suffix(render(*operand)?, "?"),
            Node::Record {
                target,
                props,
                content,
            }
            | Node::Component {
                target,
                props,
                content,
            } => self.construction(self.reference(*target)?, props, content, depth)?,
            Node::UnionCase {
                union,
                case,
                props,
                content,
            } => {
                let name = format!("{}.{}", self.reference(*union)?, self.string(*case)?);
                if props.is_empty() && content.is_empty() {
                    vec![name]
                } else {
                    self.construction(name, props, content, depth)?
                }
            }
            Node::Element {
                tag,
                props,
                content,
                ..
            } => self.construction(self.string(*tag)?.to_string(), props, content, depth)?,
            Node::ActionHandler {
                component,
                emit,
                action,
                binding,
                owner,
                body,
            } => {
                let owner = self.labelled("owner", *owner)?;
                let mut lines = vec![format!(
                    "handler {}.{} action@{binding}:{}{owner} =>",
                    self.reference(*component)?,
                    self.string(*emit)?,
                    self.reference(*action)?
                )];
                lines.extend(indent(render(*body)?));
                lines
            }
            Node::StandardMath { op, args } => {
                let name = operator_name(
                    &kinds::STANDARD_MATH_OPERATIONS,
                    *op,
                    "standard math operation",
                )?;
                call(&format!("math.{name}"), self.nodes(args, depth)?)
            }
            Node::StandardColor { op, args } => {
                let name = operator_name(
                    &kinds::STANDARD_COLOR_OPERATIONS,
                    *op,
                    "standard colour operation",
                )?;
                call(&format!("color.{name}"), self.nodes(args, depth)?)
            }
            Node::Check { operand, ty, site } => group(
                vec![
                    vec![format!("check {}:", self.string(*site)?)],
                    render(*operand)?,
                    vec![format!("as {}", self.ty(*ty)?)],
                ],
                "(",
                " ",
                ")",
            ),
            Node::Interval { ty } => vec![self.interval(*ty)?],
        })
    }

    pub(super) fn constant(&self, index: u32) -> IrResult<String> {
        let constant = self
            .module
            .constants
            .get(index as usize)
            .ok_or_else(|| malformed(format!("constant index {index} is out of range")))?;
        Ok(match constant {
            Constant::Int(value) => value.to_string(),
            Constant::BigInt { digits } => self.string(*digits)?.to_string(),
            Constant::Float(value) => float_text(*value),
        })
    }

    /// `<name key=value ...>content</name>`: one-line property values stay on the head line,
    /// longer ones follow it on indented lines and the head closes with `>` on a line of its own.
    fn construction(
        &self,
        name: String,
        props: &[Prop],
        content: &[u32],
        depth: usize,
    ) -> IrResult<Lines> {
        let mut head = format!("<{name}");
        let mut trailing = Lines::new();
        for prop in props {
            let key = match self.string(prop.name)? {
                kinds::SPREAD_PROPERTY => "...",
                key => key,
            };
            let value = self.node_at_depth(prop.value, depth)?;
            if let [single] = value.as_slice() {
                head.push_str(&format!(" {key}={single}"));
            } else {
                trailing.extend(prefix(&format!("{key}="), value));
            }
        }
        let children = self.nodes(content, depth)?;
        if trailing.is_empty() && children.is_empty() {
            return Ok(vec![format!("{head} />")]);
        }
        let mut lines = if trailing.is_empty() {
            vec![format!("{head}>")]
        } else {
            let mut lines = vec![head];
            lines.extend(indent(trailing));
            lines.push(">".to_string());
            lines
        };
        for child in children {
            lines.extend(indent(child));
        }
        lines.push(format!("</{name}>"));
        Ok(lines)
    }
}
