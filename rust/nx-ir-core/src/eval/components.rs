//! Components as values: a component construction's props, and (schema 6) a value at a site
//! whose type names a component.
//!
//! Both split the handler properties off first (`on<Emit>` for an emit the component declares,
//! each of which must be a handler built for that component and emit), check the other props
//! against the component's declaration, then put the handlers back after them. The refusals are
//! the reference runtime's, with its codes and messages.
//!
//! At a component-typed site (schema 6 only: [`super::compiled::CType::Component`]) the value
//! must be a record; one whose `$type` names another declaration passes unchanged, as the
//! reference lets components of different names meet. Schema 5 passes any value there.

use std::fmt;

use crate::error::{codes, IrError, IrResult};

use super::compiled::CDeclKind;
use super::machine::{Cx, Frame, Machine};
use super::name_index::NameIndex;
use super::normalize::Path;
use super::value::{set_field, Name, Record, Value};

/// A property list split in two: the plain props, and the handler props.
pub(crate) type SplitProps = (Vec<(Name, Value)>, Vec<(Name, Value)>);

impl Machine<'_> {
    /// Splits `input` into plain props and handler props for component `(module, decl)`;
    /// `path` names the props in a refusal. Out of line: a construction's frame stays small, as
    /// its props' defaults nest below it.
    #[inline(never)]
    pub(crate) fn split_handler_props(
        &mut self,
        module: u32,
        decl: u32,
        input: impl IntoIterator<Item = (Name, Value)>,
        path: &dyn fmt::Display,
    ) -> IrResult<SplitProps> {
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        let name = &declaration.name;
        let CDeclKind::Component { emits, .. } = &declaration.kind else {
            return Err(IrError::new(codes::COMPONENT, "The declaration is not a component."));
        };
        let key = prog.qualified(module, decl);
        let input = input.into_iter();
        let mut plain = Vec::with_capacity(input.size_hint().0);
        let mut handlers = Vec::new();
        let index = NameIndex::new(self, emits.iter().map(|(emit, _)| emit), input.size_hint().0);
        for (prop, value) in input {
            let at = prop.strip_prefix("on").and_then(|rest| index.find(self, || emits.iter().map(|(emit, _)| emit), rest));
            let emit = at.map(|at| &emits[at]);
            let Some((emit, _)) = emit else {
                if matches!(value, Value::Handler(_)) {
                    return Err(IrError::new(
                        codes::BOUNDARY_FIELD,
                        format!("Unknown {path} field '{prop}': '{name}' emits nothing a handler named '{prop}' would answer."),
                    ));
                }
                plain.push((prop, value));
                continue;
            };
            let handler = match &value {
                Value::Handler(handler) => handler,
                Value::Record(record) if record.type_name() == Some("ActionHandler") => {
                    return Err(IrError::new(
                        codes::BOUNDARY_FIELD,
                        format!("Unknown {path} field '{prop}': an ActionHandler record names a handler only through a parent instance."),
                    ));
                }
                _ => {
                    return Err(IrError::new(
                        codes::TYPE,
                        format!("Expected {path}.{prop} to be an action handler for {name}.{emit}."),
                    ))
                }
            };
            if handler.component_key != *key || handler.emit != *emit {
                // Components of one name in two modules are told apart by their keys.
                let written_for = handler.component_key.rsplit_once("::").map_or(&*handler.component_key, |(_, n)| n);
                let (expected, got) =
                    if written_for == &**name { (&**key, &*handler.component_key) } else { (&**name, written_for) };
                return Err(IrError::new(
                    codes::TYPE,
                    format!(
                        "Expected {path}.{prop} to be an action handler for {expected}.{emit}, got one for {got}.{}.",
                        handler.emit
                    ),
                ));
            }
            handlers.push((prop, value));
        }
        Ok((plain, handlers))
    }

    /// A value at a site whose type is component `(module, decl)` (schema 6).
    pub(crate) fn normalize_component(&mut self, cx: Cx, module: u32, decl: u32, value: Value, path: &Path<'_>) -> IrResult<Value> {
        let record = self.require_record(&value, path)?;
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        if record.type_name().is_some_and(|named| named != &*declaration.name) {
            return Ok(value);
        }
        let CDeclKind::Component { props, .. } = &declaration.kind else { return Ok(value) };
        let (plain, handlers) = self.split_handler_props(module, decl, record.fields.iter().cloned(), path)?;
        let dcx = Cx { module, decl, depth: cx.depth };
        let mut frame = Frame::new();
        let mut fields = self.normalize_fields(dcx, props, &plain, &mut frame, path, false)?;
        for (name, handler) in handlers {
            set_field(&mut fields, name, handler);
        }
        Ok(Value::Record(Record::new_rc(Some(Name::clone(&declaration.name)), fields)))
    }
}
