//! The text form of an image, as `nxlang ir explain` prints it: the module table and features,
//! the entrypoints, then each declaration by kind and name with its fields, types spelled as NX
//! spells them and bodies as indented expression trees. References read `name` in the image's own
//! module and `identity:name` in another; declaration spans read `@line:column-line:column` when
//! the debug section is present. [`crate::assemble`] reads this text back.
//!
//! Every index is checked: a model whose tables do not hold together is an `nx-ir-malformed`
//! error, never a panic. An image whose nodes or types refer to an earlier entry more than once
//! (a DAG) describes a tree exponentially larger than itself: the text is built against an output
//! limit (every node and type rendered, every name and literal written, counted as it is made),
//! and past it explaining fails with `nx-ir-resource-limit`, limit `maxOutput`.

mod layout;
mod nodes;

use std::cell::Cell;

use crate::error::{IrError, IrResult};
use crate::model::{kinds, Decl, Field, Module, Ref, Type};
use crate::spelling::{line_column, occurrence_suffix, quote};
use layout::{indent, Lines};

/// The output limit of [`explain_module`] and [`explain_image`]: 64 MiB of text.
pub const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;

/// Explains a decoded image (within [`DEFAULT_MAX_OUTPUT`]).
pub fn explain_module(module: &Module) -> IrResult<String> {
    explain_module_within(module, DEFAULT_MAX_OUTPUT)
}

/// Explains a decoded image in at most about `max_output` bytes of text (every node and type
/// rendered counts one, every name and literal its length): past it, `nx-ir-resource-limit` with
/// limit `maxOutput`. The work is in proportion to the limit, whatever the image.
pub fn explain_module_within(module: &Module, max_output: u64) -> IrResult<String> {
    let explainer = Explainer { module, left: Cell::new(max_output), max_output };
    let text = explainer.module()?;
    if text.len() as u64 > max_output {
        return Err(explainer.output_limit());
    }
    Ok(text)
}

/// Explains an image given as bytes: it is validated by the reader first, so a malformed or
/// truncated image is the reader's error.
pub fn explain_image(bytes: &[u8]) -> IrResult<String> {
    explain_image_within(bytes, DEFAULT_MAX_OUTPUT)
}

/// [`explain_image`] within an output limit ([`explain_module_within`]).
pub fn explain_image_within(bytes: &[u8], max_output: u64) -> IrResult<String> {
    explain_module_within(&crate::image::PreparedModule::from_slice(bytes)?.to_model(), max_output)
}

struct Explainer<'m> {
    module: &'m Module,
    /// What the output limit leaves.
    left: Cell<u64>,
    max_output: u64,
}

fn malformed(detail: impl std::fmt::Display) -> IrError {
    IrError::malformed(detail)
}

impl<'m> Explainer<'m> {
    /// Counts `units` of output against the limit.
    fn spend(&self, units: u64) -> IrResult<()> {
        match self.left.get().checked_sub(units) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(self.output_limit()),
        }
    }

    fn output_limit(&self) -> IrError {
        let limit = self.max_output;
        crate::eval::limit_error(
            "maxOutput",
            limit,
            format!("Explaining the image would write more than {limit} bytes (its nodes or types are shared)."),
        )
    }

    fn module(&self) -> IrResult<String> {
        let module = self.module;
        let own = module
            .modules
            .first()
            .ok_or_else(|| malformed("the module table is empty"))?;
        let mut text = format!(
            "module {} fingerprint {}\n",
            self.string(own.identity)?,
            own.fingerprint
        );
        for link in &module.modules[1..] {
            text.push_str(&format!(
                "links {} version {} fingerprint {}\n",
                self.string(link.identity)?,
                quote(self.string(link.version)?),
                link.fingerprint
            ));
        }
        if !module.features.is_empty() {
            let features = self.strings(&module.features)?;
            text.push_str(&format!("requires {}\n", features.join(" ")));
        }
        text.push_str(&format!(
            "entrypoints functions [{}] components [{}]\n",
            self.declaration_names(&module.function_entrypoints)?
                .join(" "),
            self.declaration_names(&module.component_entrypoints)?
                .join(" ")
        ));
        for (index, declaration) in module.declarations.iter().enumerate() {
            text.push('\n');
            for line in self.declaration(index, declaration)? {
                text.push_str(&line);
                text.push('\n');
            }
        }
        Ok(text)
    }

    fn string(&self, index: u32) -> IrResult<&'m str> {
        let text = self
            .module
            .strings
            .get(index as usize)
            .map(String::as_str)
            .ok_or_else(|| malformed(format!("string index {index} is out of range")))?;
        self.spend(1 + text.len() as u64)?;
        Ok(text)
    }

    fn strings(&self, indices: &[u32]) -> IrResult<Vec<&'m str>> {
        indices.iter().map(|&index| self.string(index)).collect()
    }

    fn declaration_names(&self, indices: &[u32]) -> IrResult<Vec<&'m str>> {
        indices
            .iter()
            .map(|&index| {
                let declaration =
                    self.module
                        .declarations
                        .get(index as usize)
                        .ok_or_else(|| {
                            malformed(format!("declaration index {index} is out of range"))
                        })?;
                self.string(declaration.name())
            })
            .collect()
    }

    /// `name` in the own module, `identity:name` in another.
    fn reference(&self, reference: Ref) -> IrResult<String> {
        let name = self.string(reference.name)?;
        if reference.slot == 0 {
            return Ok(name.to_string());
        }
        let entry = self
            .module
            .modules
            .get(reference.slot as usize)
            .ok_or_else(|| malformed(format!("module slot {} is out of range", reference.slot)))?;
        Ok(format!("{}:{name}", self.string(entry.identity)?))
    }

    fn type_entry(&self, index: u32) -> IrResult<&'m Type> {
        self.module
            .types
            .get(index as usize)
            .ok_or_else(|| malformed(format!("type index {index} is out of range")))
    }

    /// A type spelled as NX spells it. Types only point at earlier types in a valid image; the
    /// depth guard keeps a cyclic model from recursing forever.
    fn ty(&self, index: u32) -> IrResult<String> {
        self.ty_at_depth(index, 0)
    }

    fn ty_at_depth(&self, index: u32, depth: usize) -> IrResult<String> {
        if depth > nodes::MAX_DEPTH {
            return Err(malformed("types nest too deeply to explain"));
        }
        self.spend(1)?;
        let depth = depth + 1;
        Ok(match self.type_entry(index)? {
            Type::Primitive { name } => self.string(*name)?.to_string(),
            Type::Nominal(reference) => self.reference(*reference)?,
            Type::Seq { item, occurrence } => {
                let suffix = occurrence_suffix(*occurrence)
                    .ok_or_else(|| malformed(format!("unknown occurrence {occurrence}")))?;
                let item_text = self.ty_at_depth(*item, depth)?;
                // A suffix after a function type would bind to its result, and one after a
                // constrained type to its last bound.
                let parenthesized = matches!(
                    self.type_entry(*item)?,
                    Type::Function { .. } | Type::AnyFunction { .. } | Type::Constrained { .. }
                );
                if parenthesized {
                    format!("({item_text}){suffix}")
                } else {
                    format!("{item_text}{suffix}")
                }
            }
            Type::Function { result, params } => {
                let mut text = String::from("<function");
                for param in params {
                    let optional = param.flags & kinds::flags::PARAM_OPTIONAL != 0;
                    let mut ty = self.ty_at_depth(param.ty, depth)?;
                    if optional {
                        ty = declared_from_read_type(&ty);
                    }
                    text.push(' ');
                    if param.flags & kinds::flags::PARAM_CONTENT != 0 {
                        text.push_str("content ");
                    }
                    text.push_str(self.string(param.name)?);
                    if optional {
                        text.push('?');
                    }
                    text.push(':');
                    text.push_str(&ty);
                }
                format!("{text} />: {}", self.ty_at_depth(*result, depth)?)
            }
            Type::AnyFunction { result } => {
                format!("<function ... />: {}", self.ty_at_depth(*result, depth)?)
            }
            Type::Constrained { base, .. } => format!(
                "{} where {}",
                self.ty_at_depth(*base, depth)?,
                self.interval(index)?
            ),
        })
    }

    /// The interval of constrained type `index` as the constraint is written: `in A..=B` or
    /// `in A..B` when the low end is included and both are given, else `>= A`/`> A` and
    /// `<= B`/`< B` joined by ` && ` (nothing at all when both ends are open).
    fn interval(&self, index: u32) -> IrResult<String> {
        let &Type::Constrained {
            low, high, flags, ..
        } = self.type_entry(index)?
        else {
            return Err(malformed(format!("type {index} is not a constrained type")));
        };
        let low_exclusive = flags & kinds::ty::CONSTRAINED_LOW_EXCLUSIVE != 0;
        let high_op = if flags & kinds::ty::CONSTRAINED_HIGH_EXCLUSIVE != 0 {
            "<"
        } else {
            "<="
        };
        if let (Some(low), Some(high), false) = (low, high, low_exclusive) {
            let range = if high_op == "<" { ".." } else { "..=" };
            return Ok(format!(
                "in {}{range}{}",
                self.constant(low)?,
                self.constant(high)?
            ));
        }
        let mut terms = Vec::new();
        if let Some(low) = low {
            let op = if low_exclusive { ">" } else { ">=" };
            terms.push(format!("{op} {}", self.constant(low)?));
        }
        if let Some(high) = high {
            terms.push(format!("{high_op} {}", self.constant(high)?));
        }
        Ok(terms.join(" && "))
    }

    /// `: T` for a declared type, nothing without one.
    fn declared(&self, ty: Option<u32>) -> IrResult<String> {
        match ty {
            Some(ty) => Ok(format!(": {}", self.ty(ty)?)),
            None => Ok(String::new()),
        }
    }

    fn span(&self, index: usize) -> String {
        let Some(debug) = &self.module.debug else {
            return String::new();
        };
        let Some(Some((start, end))) = debug.declaration_spans.get(index) else {
            return String::new();
        };
        let (line, column) = line_column(&debug.source, *start as usize);
        let (end_line, end_column) = line_column(&debug.source, *end as usize);
        format!(" @{line}:{column}-{end_line}:{end_column}")
    }

    fn declaration(&self, index: usize, declaration: &Decl) -> IrResult<Lines> {
        let name = self.string(declaration.name())?;
        let span = self.span(index);
        let mut lines = Lines::new();
        match declaration {
            Decl::Function {
                params,
                body,
                result,
                result_flags,
                ..
            } => {
                let params = params
                    .iter()
                    .map(|param| self.parameter(param))
                    .collect::<IrResult<Vec<_>>>()?;
                let optional = if result_flags & kinds::flags::RESULT_OPTIONAL != 0 {
                    " (optional result)"
                } else {
                    ""
                };
                lines.push(format!(
                    "function {name}({}){}{optional}{span} =",
                    params.join(", "),
                    self.declared(*result)?
                ));
                lines.extend(indent(self.node(*body)?));
            }
            Decl::Value { init, ty, .. } => {
                lines.push(format!("value {name}{}{span} =", self.declared(*ty)?));
                lines.extend(indent(self.node(*init)?));
            }
            Decl::Record {
                fields,
                bases,
                is_abstract,
                update_target,
                ..
            } => {
                let modifier = if *is_abstract != 0 { " abstract" } else { "" };
                lines.push(format!(
                    "record {name}{modifier}{}{}{span}",
                    self.extends(bases)?,
                    self.labelled("update of", *update_target)?
                ));
                lines.extend(indent(self.fields(fields)?));
            }
            Decl::Component {
                props,
                state,
                body,
                flags,
                emits,
                state_record,
                ..
            } => {
                let mut head = format!("component {name}");
                if flags & kinds::flags::COMPONENT_ABSTRACT != 0 {
                    head.push_str(" abstract");
                }
                if flags & kinds::flags::COMPONENT_EXTERNAL != 0 {
                    head.push_str(" external");
                }
                head.push_str(&self.labelled("state", *state_record)?);
                lines.push(format!("{head}{span}"));
                for (label, fields) in [("props", props), ("state", state)] {
                    let fields = self.fields(fields)?;
                    if !fields.is_empty() {
                        lines.push(format!("  {label}"));
                        lines.extend(indent(indent(fields)));
                    }
                }
                if !emits.is_empty() {
                    lines.push("  emits".to_string());
                    for emit in emits {
                        lines.push(format!(
                            "    {} = {}",
                            self.string(emit.name)?,
                            self.reference(emit.action)?
                        ));
                    }
                }
                if let Some(body) = body {
                    lines.push("  body =".to_string());
                    lines.extend(indent(indent(self.node(*body)?)));
                }
            }
            Decl::Union {
                cases,
                bases,
                property_target,
                ..
            } => {
                lines.push(format!(
                    "union {name}{}{}{span}",
                    self.extends(bases)?,
                    self.labelled("property of", *property_target)?
                ));
                for case in cases {
                    let constant = if case.is_constant != 0 {
                        " constant"
                    } else {
                        ""
                    };
                    lines.push(format!("  case {}{constant}", self.string(case.name)?));
                    lines.extend(indent(indent(self.fields(&case.fields)?)));
                }
            }
            Decl::TypeAlias { .. } => lines.push(format!("alias {name}{span}")),
        }
        Ok(lines)
    }

    /// `[content ]name[?]: T[ = default]`; an optional parameter shows its declared type.
    fn parameter(&self, param: &Field) -> IrResult<String> {
        let content = if param.flags & kinds::flags::PARAM_CONTENT != 0 {
            "content "
        } else {
            ""
        };
        let mut ty = self.ty(param.ty)?;
        let mark = if param.flags & kinds::flags::PARAM_OPTIONAL != 0 {
            ty = declared_from_read_type(&ty);
            "?"
        } else {
            ""
        };
        let default = match param.default {
            Some(default) => format!(" = {}", self.node(default)?.join(" ")),
            None => String::new(),
        };
        Ok(format!(
            "{content}{}{mark}: {ty}{default}",
            self.string(param.name)?
        ))
    }

    fn extends(&self, bases: &[Ref]) -> IrResult<String> {
        if bases.is_empty() {
            return Ok(String::new());
        }
        let names = bases
            .iter()
            .map(|&base| self.reference(base))
            .collect::<IrResult<Vec<_>>>()?;
        Ok(format!(" extends {}", names.join(", ")))
    }

    fn labelled(&self, label: &str, reference: Option<Ref>) -> IrResult<String> {
        match reference {
            Some(reference) => Ok(format!(" {label} {}", self.reference(reference)?)),
            None => Ok(String::new()),
        }
    }

    /// One line per field, `[content ]name: T[ required][ = default]`; a default that takes more
    /// than one line follows on indented lines.
    fn fields(&self, fields: &[Field]) -> IrResult<Lines> {
        let mut lines = Lines::new();
        for field in fields {
            let content = if field.flags & kinds::flags::FIELD_CONTENT != 0 {
                "content "
            } else {
                ""
            };
            let required = if field.flags & kinds::flags::FIELD_REQUIRED != 0 {
                " required"
            } else {
                ""
            };
            let line = format!(
                "{content}{}: {}{required}",
                self.string(field.name)?,
                self.ty(field.ty)?
            );
            match field.default {
                None => lines.push(line),
                Some(default) => {
                    let value = self.node(default)?;
                    if let [single] = value.as_slice() {
                        lines.push(format!("{line} = {single}"));
                    } else {
                        lines.push(format!("{line} ="));
                        lines.extend(indent(value));
                    }
                }
            }
        }
        Ok(lines)
    }
}

/// An optional parameter's declared type from its spelled read type: `T` from `T?`, `T+` from
/// `T*`; a function type loses the parentheses only its `?` suffix needed.
fn declared_from_read_type(read: &str) -> String {
    if let Some(base) = read.strip_suffix('?') {
        let unwrapped = base
            .strip_prefix('(')
            .and_then(|inner| inner.strip_suffix(')'))
            .filter(|inner| inner.starts_with("<function"));
        unwrapped.unwrap_or(base).to_string()
    } else if let Some(base) = read.strip_suffix('*') {
        format!("{base}+")
    } else {
        read.to_string()
    }
}

#[cfg(test)]
mod tests;
