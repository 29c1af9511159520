//! The lifecycle steps on the evaluator: a component entrypoint found by name, props and state
//! normalized into the body's frame, a handler run against an action, a state patched, and the
//! nesting walk a patched state must pass (ir-format §4.12, §8; the reference's checks, codes,
//! messages and charges, in its order).

use std::fmt;
use std::rc::Rc;

use crate::error::{codes, IrError, IrResult};

use super::super::compiled::{CDecl, CDeclKind, CField, CNode};
use super::super::cost::{limit_error, MAX_VALUE_NESTING};
use super::super::host::{HostValue, HostValueSink};
use super::super::machine::{Cx, Frame, Machine, Tokens};
use super::super::normalize::Path;
use super::super::name_index::NameIndex;
use super::super::value::{Handler, Name, Record, Value};

/// A component of the entry module, found by name: its declaration index and declaration.
pub(crate) type Found<'p> = (u32, &'p CDecl);

/// What a handler the dispatching component owns reads live: the component's props and state
/// fields (the state slots follow the props'), and its working state.
pub(crate) type Live<'a> = (&'a [CField], &'a [CField], &'a [(Name, Value)]);

/// The parts of a component declaration the lifecycle reads.
pub(crate) struct Parts<'p> {
    pub props: &'p [CField],
    pub state: &'p [CField],
    pub body: Option<u32>,
    pub is_abstract: bool,
    pub emits: &'p [(Name, super::super::compiled::Target)],
    pub state_target: Option<(u32, u32)>,
}

pub(crate) fn parts(decl: &CDecl) -> Parts<'_> {
    match &decl.kind {
        CDeclKind::Component { props, state, body, is_abstract, emits, state_target, .. } => Parts {
            props,
            state,
            body: *body,
            is_abstract: *is_abstract,
            emits,
            state_target: *state_target,
        },
        _ => Parts { props: &[], state: &[], body: None, is_abstract: false, emits: &[], state_target: None },
    }
}

/// A display of two parts side by side (`Counter props`, `Button.Tapped action`).
pub(crate) struct Joined<'a>(pub &'a dyn fmt::Display, pub &'a str);

impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.0, self.1)
    }
}

/// Where a frame's evaluation runs: the entry module's component `decl`, at the top.
pub(crate) fn entry_cx(decl: u32) -> Cx {
    Cx { module: 0, decl, depth: 0 }
}

/// How a value is described where a handler returned it (the reference runtime's words).
fn described(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) => "a number",
        Value::Str(_) | Value::Case(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Record(_) => "a record",
        Value::Function(_) => "a function",
        Value::Handler(_) => "an action handler",
    }
}

impl<'p> Machine<'p> {
    /// The component entrypoint `name` of the entry module (`nx-ir-component` when there is none).
    pub(crate) fn component_entrypoint(&self, name: &str) -> IrResult<Found<'p>> {
        let prog = self.prog;
        let not_found = || IrError::new(codes::COMPONENT, format!("Component '{name}' was not found."));
        let entry = prog.modules.first().ok_or_else(not_found)?;
        let index = entry.decl_by_name.get(name).copied().ok_or_else(not_found)?;
        if !entry.component_entrypoints.contains(&index) {
            return Err(not_found());
        }
        let decl = entry.decls.get(index as usize).ok_or_else(not_found)?;
        match decl.kind {
            CDeclKind::Component { .. } => Ok((index, decl)),
            _ => Err(not_found()),
        }
    }

    /// A map a host passed (props, a state) read into fields, in byte order of the names (the
    /// order the reference runtime's maps hold them in, which decides which unknown name a
    /// refusal names). Nothing is charged.
    pub(crate) fn read_map(&mut self, map: &[(&str, &HostValue)]) -> IrResult<Vec<(Name, Value)>> {
        let mut order: Vec<usize> = (0..map.len()).collect();
        order.sort_by(|a, b| map[*a].0.as_bytes().cmp(map[*b].0.as_bytes()));
        let mut fields = Vec::with_capacity(map.len());
        for at in order {
            let (name, value) = map[at];
            let value = self.read_host(&value, 0)?;
            fields.push((self.prog_name(name), value));
        }
        Ok(fields)
    }

    /// The body rendered for the host: written with tokens of `generation` (or without tokens),
    /// charged to the component. Returns the output and the handlers its tokens name.
    pub(crate) fn write_rendered<K: HostValueSink>(
        &mut self,
        cx: Cx,
        value: &Value,
        generation: Option<u64>,
        sink: &mut K,
    ) -> IrResult<(K::Out, Vec<Rc<Handler>>)> {
        self.tokens = generation.map(|generation| Tokens { generation, handlers: Vec::new() });
        let written = self.write(cx, value, sink);
        let handlers = self.tokens.take().map(|tokens| tokens.handlers).unwrap_or_default();
        Ok((written?, handlers))
    }

    /// State fields written for the host: each value charged to the component in the state's
    /// order, then handed over as one map (which costs nothing itself) in byte order of names.
    pub(crate) fn write_state<K: HostValueSink>(&mut self, cx: Cx, state: &[(Name, Value)], sink: &mut K) -> IrResult<K::Out> {
        let mut written = Vec::with_capacity(state.len());
        for (name, value) in state {
            written.push((&**name, self.write(cx, value, sink)?));
        }
        written.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        sink.record(None, written)
    }

    /// Runs `handler` against `action`: the action is constructed against the record the
    /// handler accepts, and the body runs over the captured frame with the action in its slot;
    /// with `live` (the component, when it owns the handler, and its working state) the state
    /// slots hold the working state. Returns the records the body returned.
    pub(crate) fn invoke_handler(
        &mut self,
        handler: &Handler,
        action: &Record,
        live: Option<Live<'_>>,
    ) -> IrResult<Vec<Value>> {
        let prog = self.prog;
        let component_name = handler.component_key.rsplit_once("::").map_or(&*handler.component_key, |(_, name)| name);
        let label = format!("{component_name}.{}", handler.emit);
        let stale = || IrError::new(codes::COMPONENT, format!("Handler {label} is not a handler of this program."));
        let node = prog.modules.get(handler.module as usize).and_then(|m| m.nodes.get(handler.node as usize));
        let Some(CNode::ActionHandler { action: action_target, binding, body, .. }) = node else {
            return Err(stale());
        };
        let hcx = Cx { module: handler.module, decl: handler.decl, depth: 0 };
        let (am, ad) = self.resolve(hcx, handler.node, action_target).map_err(|_| stale())?;
        let expected = &prog.decl(am, ad).name;
        if action.type_name.as_deref() != Some(&**expected) {
            return Err(IrError::new(
                codes::TYPE,
                format!(
                    "Expected an action of type '{expected}' for handler {label}, got '{}'.",
                    action.type_name().unwrap_or("undefined")
                ),
            ));
        }
        let action = self.normalize_action(am, ad, action, &Joined(&label, " action"))?;
        // The body runs over a copy of the captured frame, paid as the capture was when the
        // handler was made: a free copy, against the memory ceiling.
        self.copied_frame(hcx, handler.node, handler.capture.len())?;
        let mut frame: Frame = handler.capture.clone();
        if let Some((props, state_fields, state)) = live {
            let index = NameIndex::new(self, state.iter().map(|(name, _)| name), state_fields.len());
            for (offset, field) in state_fields.iter().enumerate() {
                let found = index.find(self, || state.iter().map(|(name, _)| name), &field.name);
                let value = found.map_or_else(Value::empty, |at| state[at].1.clone());
                self.bind(hcx, &mut frame, (props.len() + offset) as u32, value)?;
            }
        }
        self.bind(hcx, &mut frame, *binding, action)?;
        let results = match self.eval(hcx, &mut frame, *body)? {
            Value::Seq(items) => items.to_vec(),
            other => vec![other],
        };
        if results.is_empty() {
            return Err(IrError::new(
                codes::HANDLER_RESULT,
                format!("Handler {label} returned an empty list; a handler returns an action, an update record, or a list of them."),
            ));
        }
        for item in &results {
            if item.as_record().is_none_or(|record| record.type_name.is_none()) {
                return Err(IrError::new(
                    codes::HANDLER_RESULT,
                    format!(
                        "Handler {label} returned {}; a handler returns an action, an update record, or a list of them.",
                        described(item)
                    ),
                ));
            }
        }
        Ok(results)
    }

    /// A host's action constructed against the action record `(module, decl)`, defaults and all.
    pub(crate) fn normalize_action(&mut self, module: u32, decl: u32, input: &Record, path: &dyn fmt::Display) -> IrResult<Value> {
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        let CDeclKind::Record { fields, .. } = &declaration.kind else {
            return Err(IrError::new(codes::TYPE, "The action is not an action record."));
        };
        let expected = &declaration.name;
        if let Some(named) = input.type_name().filter(|named| *named != &**expected) {
            return Err(IrError::new(codes::TYPE, format!("Expected {path} to be a '{expected}' action, got '{named}'.")));
        }
        let cx = Cx { module, decl, depth: 0 };
        let mut frame = Frame::new();
        let fields = self.normalize_fields(cx, fields, &input.fields.as_slice(), &mut frame, &Path::Root(&path.to_string()), false)?;
        Ok(Value::Record(Record::new_rc(Some(Name::clone(expected)), fields)))
    }

    /// Whether `value` is the update record of `target` (the component in schema 5, its state
    /// record in schema 6): some linked record of its `$type` updates that declaration. The
    /// name hashed and each shape of it looked at are tallied.
    pub(crate) fn updates(&mut self, value: &Value, target: (u32, u32)) -> bool {
        let Some(type_name) = value.as_record().and_then(|record| record.type_name.as_ref()) else { return false };
        let prog = self.prog;
        let shapes = prog.shapes_of(type_name);
        self.tally(1 + type_name.len() as u64 / 64 + shapes.len() as u64);
        shapes.iter().any(|shape| {
            shape.case.is_none()
                && matches!(&prog.decl(shape.module, shape.decl).kind,
                    CDeclKind::Record { update_target: Some(super::super::compiled::Target::Decl { module, decl }), .. }
                        if (*module, *decl) == target)
        })
    }

    /// A state patched with full validation: the patch's `$type` (if any) must be the
    /// component's state update record, every name a state field; the merged state is
    /// normalized in explicit mode, and what the patch supplied must nest within the limit.
    pub(crate) fn patch_state(
        &mut self,
        (index, decl): Found<'p>,
        current: &[(Name, Value)],
        patch: &Record,
        depths: &mut Depths,
    ) -> IrResult<Vec<(Name, Value)>> {
        let name = &decl.name;
        let state = parts(decl).state;
        let expected = if self.prog.schema6 { format!("{name}.State.Update") } else { format!("{name}.Update") };
        if let Some(named) = patch.type_name().filter(|named| **named != *expected) {
            return Err(IrError::new(
                codes::STATE_PATCH,
                format!("Cannot apply '{named}' to {name} state; only '{expected}' patches it."),
            ));
        }
        // Many names: each found through an index of the names it is looked for among, so the
        // work is linear in the fields patched, declared and held, not their products.
        let declared = NameIndex::new(self, state.iter().map(|field| &field.name), patch.fields.len());
        let mut merged: Vec<(Name, Value)> = current.to_vec();
        self.tally(merged.len() as u64 + 1);
        let mut held = NameIndex::new(self, current.iter().map(|(key, _)| key), patch.fields.len());
        for (key, value) in &patch.fields {
            let Some(at) = declared.find(self, || state.iter().map(|field| &field.name), key) else {
                return Err(IrError::new(codes::STATE_FIELD, format!("Unknown {name} state field '{key}'.")));
            };
            let field = &state[at];
            match held.find(self, || merged.iter().map(|(key, _)| key), &field.name) {
                Some(at) => merged[at].1 = value.clone(),
                None => {
                    held.add(&field.name, merged.len());
                    merged.push((Name::clone(&field.name), value.clone()));
                }
            }
        }
        let label = format!("{name} state");
        let mut frame = Frame::new();
        let next = self.normalize_fields(entry_cx(index), state, &merged, &mut frame, &Path::Root(&label), true)?;
        let patched = NameIndex::new(self, patch.fields.iter().map(|(key, _)| key), next.len());
        for (field, value) in &next {
            if patched.find(self, || patch.fields.iter().map(|(key, _)| key), field).is_some() {
                depths.check(self, value)?;
            }
        }
        Ok(next)
    }
}

/// The check that a patched state nests no deeper than a host value may (256 levels, a
/// handler's capture counting as one), made by the runtime for free (its work tallied, a unit a
/// value visited). It walks only what a patch supplied and remembers, for the call, how deep
/// each allocation held in more than one place was found to nest, so a large value supplied
/// again is not walked again.
#[derive(Default)]
pub(crate) struct Depths {
    /// Levels below and including each remembered allocation, with the value (kept alive so its
    /// address names it for the whole call).
    levels: super::held::AddressMap<(Value, u32)>,
}

fn nesting_error() -> IrError {
    limit_error(
        "maxValueNesting",
        u64::from(MAX_VALUE_NESTING),
        format!("A value nests more than {MAX_VALUE_NESTING} levels deep."),
    )
}

impl Depths {
    pub(crate) fn check(&mut self, machine: &mut Machine<'_>, value: &Value) -> IrResult<()> {
        self.levels_of(machine, value, 1).map(|_| ())
    }

    fn levels_of(&mut self, machine: &mut Machine<'_>, value: &Value, depth: u32) -> IrResult<u32> {
        if depth > MAX_VALUE_NESTING {
            return Err(nesting_error());
        }
        machine.tally(1);
        let (address, shared) = match value {
            Value::Seq(items) => (Rc::as_ptr(items) as *const u8 as usize, Rc::strong_count(items) > 1),
            Value::Record(record) => (Rc::as_ptr(record) as *const u8 as usize, Rc::strong_count(record) > 1),
            Value::Handler(handler) => (Rc::as_ptr(handler) as *const u8 as usize, Rc::strong_count(handler) > 1),
            _ => return Ok(1),
        };
        if !machine.stack_ok() {
            return Err(machine.value_stack_error());
        }
        if shared {
            if let Some((_, levels)) = self.levels.get(&address) {
                let levels = *levels;
                if depth + levels - 1 > MAX_VALUE_NESTING {
                    return Err(nesting_error());
                }
                return Ok(levels);
            }
        }
        let deeper = depth + 1;
        let mut below = 0;
        match value {
            Value::Seq(items) => {
                for item in items.iter() {
                    below = below.max(self.levels_of(machine, item, deeper)?);
                }
            }
            Value::Record(record) => {
                for (_, field) in &record.fields {
                    below = below.max(self.levels_of(machine, field, deeper)?);
                }
            }
            Value::Handler(handler) => {
                for item in handler.capture.iter().flatten() {
                    below = below.max(self.levels_of(machine, item, deeper)?);
                }
            }
            _ => {}
        }
        let levels = below + 1;
        if shared {
            self.levels.insert(address, (value.clone(), levels));
        }
        Ok(levels)
    }
}
