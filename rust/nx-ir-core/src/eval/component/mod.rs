//! The component lifecycle (ir-format §4.12, §6, §8; schema-6.md for `<C>.State.Update`), as
//! both reference runtimes have it: a component's descriptor, initialize (rendered output with
//! handler tokens `h1-n`, state, and an instance), evaluate, dispatch of action batches against
//! an instance (handlers run, state patched through `<C>.Update` in schema 5 and
//! `<C>.State.Update` in schema 6, effects collected, the body rendered once with the next
//! generation's tokens), normalize and patch a state, and instances stored as bytes or JSON and
//! restored in another process ([`stored`]). The update helpers for hosts are in [`update`].
//!
//! Every call runs under the same [`Limits`] as a function call, measures its input first (in
//! the reference's order: props then content or state; a batch entry by entry; a state then its
//! patch) and charges the six charges of §6.1. An instance never changes: a dispatch returns
//! the next one, and a failed batch leaves the given one as it was.

mod held;
mod lifecycle;
pub mod stored;
pub mod update;

use std::rc::Rc;
use std::sync::Arc;

use crate::error::{codes, IrError, IrResult};

use super::cost::{Limits, Usage};
use super::host::{HostValue, HostValueBuilder, HostValueSink};
use super::machine::{Frame, Machine};
use super::normalize::Path;
use super::value::{Name, Record, Value};
use super::{begin, with_machine, CompiledProgram, HostCall};

use held::{Freezer, Held, HeldHandler, Thawer};
use super::name_index::NameIndex;
use lifecycle::{entry_cx, parts, Depths, Joined};

/// A component instance: what dispatch runs a batch against. Never changed: every dispatch
/// returns a new one and the one given stays valid (for a retry). Shareable between threads.
/// Written out with [`ComponentInstance::to_bytes`] or [`ComponentInstance::to_json`], it is
/// read back only through [`restore_component_instance`], which checks it against the program.
#[derive(Debug, Clone)]
pub struct ComponentInstance {
    data: Arc<InstanceData>,
}

#[derive(Debug)]
pub(crate) struct InstanceData {
    /// Identity and image hash of every module of the program that rendered it, sorted.
    pub program: Arc<[(Arc<str>, u64)]>,
    pub component: Name,
    /// The declared props, normalized.
    pub props: Arc<[(Name, Held)]>,
    /// The handlers the parent bound, by property name (`onTapped`).
    pub handler_props: Arc<[(Name, Arc<HeldHandler>)]>,
    pub state: Box<[(Name, Held)]>,
    /// The handlers of the latest rendered output, in token order.
    pub handlers: Box<[Arc<HeldHandler>]>,
    pub generation: u64,
}

impl Drop for InstanceData {
    /// Drops the held values flat ([`held::drop_flat`]): a restored instance's may nest deeper
    /// than the dropping thread's stack allows a recursive drop.
    fn drop(&mut self) {
        // Containers alone go on the list: an instance of scalars and no handlers allocates none.
        let mut pending = Vec::new();
        let state = std::mem::take(&mut self.state);
        pending.extend(state.into_vec().into_iter().map(|(_, held)| held).filter(Held::is_container));
        if let Some(props) = Arc::get_mut(&mut self.props) {
            pending.extend(props.iter_mut().filter(|(_, held)| held.is_container()).map(|(_, held)| std::mem::replace(held, Held::Bool(false))));
        }
        // Handlers on the list alone, so that whichever holder of one goes last takes it apart.
        let handlers = std::mem::take(&mut self.handlers);
        pending.extend(handlers.into_vec().into_iter().map(Held::Handler));
        if !self.handler_props.is_empty() {
            let handler_props = std::mem::replace(&mut self.handler_props, Arc::new([]));
            pending.extend(handler_props.iter().map(|(_, handler)| Held::Handler(Arc::clone(handler))));
        }
        held::drop_flat(pending);
    }
}

impl ComponentInstance {
    /// The name of the component it is an instance of.
    pub fn component(&self) -> &str {
        &self.data.component
    }

    /// The render generation its handler tokens belong to (`h<generation>-<n>`).
    pub fn generation(&self) -> u64 {
        self.data.generation
    }

    /// The tokens of the latest rendered output's handlers, in order.
    pub fn tokens(&self) -> Vec<String> {
        (1..=self.data.handlers.len()).map(|n| token(self.data.generation, n)).collect()
    }

    /// The work units a call may take thawing what the instance holds ([`held::held_size`] of
    /// its props, state and handlers, a unit a field and a handler besides): the instance's
    /// part of a call's input in the work bound (`eval::work`).
    pub(crate) fn held_size(&self) -> u64 {
        let data = &*self.data;
        let handlers: Vec<Held> = data
            .handler_props
            .iter()
            .map(|(_, handler)| handler)
            .chain(data.handlers.iter())
            .map(|handler| Held::Handler(Arc::clone(handler)))
            .collect();
        let fields = data.props.iter().chain(data.state.iter()).map(|(_, held)| held);
        let named = (data.props.len() + data.state.len() + data.handler_props.len()) as u64;
        named + held::held_size(fields.chain(handlers.iter()))
    }
}

impl InstanceData {
    /// The handler a token of the latest rendered output names: only its canonical spelling.
    fn handler(&self, token: &str) -> Option<&Arc<HeldHandler>> {
        let number = token.strip_prefix('h')?.strip_prefix(self.generation.to_string().as_str())?.strip_prefix('-')?;
        let index: usize = number.parse().ok()?;
        if index.to_string() != number {
            return None;
        }
        self.handlers.get(index.checked_sub(1)?)
    }
}

fn token(generation: u64, number: usize) -> String {
    format!("h{generation}-{number}")
}

/// What to initialize a component with besides its props.
#[derive(Debug, Clone, Copy, Default)]
pub struct ComponentInit<'a> {
    /// The instance whose rendered output the props were read from: every `ActionHandler`
    /// record in the props, at any depth, becomes the handler it holds under the record's token.
    pub parent: Option<&'a ComponentInstance>,
    /// A complete state to start from (checked in explicit mode) instead of the initial one.
    pub state: Option<&'a [(&'a str, &'a HostValue)]>,
}

/// What initialize returns: the rendered output (handlers with tokens `h1-n`), the state (one
/// map of the state's fields) and the instance.
#[derive(Debug, Clone)]
pub struct Initialized<O> {
    pub output: O,
    pub state: O,
    pub instance: ComponentInstance,
}

/// What a dispatch returns: the body rendered against the next state (tokens of the next
/// generation), what the handlers returned for the host in order, the state, and the next
/// instance.
#[derive(Debug, Clone)]
pub struct Dispatched<O> {
    pub output: O,
    pub effects: Vec<O>,
    pub state: O,
    pub instance: ComponentInstance,
}

/// A map a host passes: props or a state. Left out, it is the empty map.
pub type HostMap<'a> = &'a [(&'a str, &'a HostValue)];

/// Refuses an instance that another program rendered: its handlers name nodes and slots of
/// the very images it was made with.
fn belongs(program: &CompiledProgram, instance: &InstanceData) -> IrResult<()> {
    if Arc::ptr_eq(&program.images, &instance.program) || *program.images == *instance.program {
        return Ok(());
    }
    Err(IrError::new(
        codes::COMPONENT,
        format!("The instance of '{}' was initialized by another program.", instance.component),
    ))
}

/// Constructs component `name`'s descriptor from props and content, as an element in a body
/// would: `{ "$type": name, …normalized props, "on<Emit>": handlers }`.
pub fn construct_component_descriptor(
    program: &CompiledProgram,
    name: &str,
    props: HostMap<'_>,
    content: &[&HostValue],
    limits: &Limits,
) -> IrResult<(HostValue, Usage)> {
    let mut usage = Usage::default();
    let value = construct_component_descriptor_with(program, name, props, content, limits, &mut HostValueBuilder, &mut usage, HostCall::default())?;
    Ok((value, usage))
}

/// [`construct_component_descriptor`] into any sink; `usage` is filled on success and failure.
#[allow(clippy::too_many_arguments)]
pub fn construct_component_descriptor_with<K: HostValueSink>(
    program: &CompiledProgram,
    name: &str,
    props: HostMap<'_>,
    content: &[&HostValue],
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<K::Out> {
    begin(limits, usage, |meter| {
        meter.map(props)?;
        for item in content {
            if meter.over() {
                break;
            }
            meter.value(item)?;
        }
        Ok(())
    })?;
    with_machine(program, limits, usage, host, |machine| {
        let (index, decl) = machine.component_entrypoint(name)?;
        let fields = parts(decl).props;
        let path = Joined(&name, " props");
        let input = machine.read_map(props)?;
        let (mut input, handlers) = machine.split_handler_props(0, index, input, &path)?;
        let mut items = Vec::with_capacity(content.len());
        for item in content {
            items.push(machine.read_host(item, 0)?);
        }
        if !items.is_empty() {
            machine.bind_content(0, fields, &mut input, items, name)?;
        }
        let cx = entry_cx(index);
        let mut frame = Frame::new();
        let label = path.to_string();
        let mut out = machine.normalize_fields(cx, fields, &input, &mut frame, &Path::Root(&label), false)?;
        for (prop, handler) in handlers {
            super::value::set_field(&mut out, prop, handler);
        }
        machine.stop_long_run();
        let record = Value::Record(Record::new_rc(Some(Name::clone(&decl.name)), out));
        machine.write(cx, &record, sink)
    })
}

/// Initializes component `name` from props: renders its body against its initial state (or
/// `init.state`) and returns the output, the state and the instance.
pub fn initialize_component(
    program: &CompiledProgram,
    name: &str,
    props: HostMap<'_>,
    init: ComponentInit<'_>,
    limits: &Limits,
) -> IrResult<(Initialized<HostValue>, Usage)> {
    let mut usage = Usage::default();
    let value = initialize_component_with(program, name, props, init, limits, &mut HostValueBuilder, &mut usage, HostCall::default())?;
    Ok((value, usage))
}

/// [`initialize_component`] into any sink; `usage` is filled on success and failure.
#[allow(clippy::too_many_arguments)]
pub fn initialize_component_with<K: HostValueSink>(
    program: &CompiledProgram,
    name: &str,
    props: HostMap<'_>,
    init: ComponentInit<'_>,
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<Initialized<K::Out>> {
    begin(limits, usage, |meter| {
        meter.map(props)?;
        if let Some(state) = init.state {
            if !meter.over() {
                meter.map(state)?;
            }
        }
        Ok(())
    })?;
    with_machine(program, limits, usage, host, |machine| {
        let found = machine.component_entrypoint(name)?;
        let (index, decl) = found;
        let shape = parts(decl);
        let Some(body) = shape.body.filter(|_| !shape.is_abstract) else {
            return Err(IrError::new(
                codes::COMPONENT,
                format!("Component '{name}' cannot be initialized because it has no body."),
            ));
        };
        if let Some(parent) = init.parent {
            belongs(program, &parent.data)?;
        }
        let path = Joined(&name, " props");
        let label = path.to_string();
        let supplied = machine.read_map(props)?;
        let supplied = resolve_parent_handlers(machine, supplied, init.parent.map(|p| &*p.data), &label)?;
        let (fields, handler_props) = machine.split_handler_props(0, index, supplied, &path)?;
        let cx = entry_cx(index);
        let mut frame = Frame::new();
        let props = machine.normalize_fields_bound(cx, shape.props, &fields, &mut frame, &Path::Root(&label), false)?;
        let state_label = format!("{name} state");
        let state = match init.state {
            None => machine.normalize_fields_bound(cx, shape.state, &[], &mut frame, &Path::Root(&state_label), false)?,
            Some(given) => {
                let given = machine.read_map(given)?;
                machine.normalize_fields_bound(cx, shape.state, &given, &mut frame, &Path::Root(&state_label), true)?
            }
        };
        let rendered = machine.eval(cx, &mut frame, body)?;
        machine.stop_long_run();
        let (output, handlers) = machine.write_rendered(cx, &rendered, Some(1), sink)?;
        let state_out = machine.write_state(cx, &state, sink)?;
        let mut freezer = Freezer::default();
        let instance = InstanceData {
            program: Arc::clone(&program.images),
            component: Name::clone(&decl.name),
            props: freezer.fields(&props)?.into(),
            handler_props: handler_props
                .iter()
                .map(|(prop, value)| match value {
                    Value::Handler(handler) => Ok((Name::clone(prop), freezer.handler(handler)?)),
                    _ => Err(IrError::new(codes::COMPONENT, "A handler property holds no handler.")),
                })
                .collect::<IrResult<Vec<_>>>()?
                .into(),
            state: freezer.fields(&state)?,
            handlers: handlers.iter().map(|h| freezer.handler(h)).collect::<IrResult<_>>()?,
            generation: 1,
        };
        machine.tally(freezer.units);
        Ok(Initialized { output, state: state_out, instance: ComponentInstance { data: Arc::new(instance) } })
    })
}

/// Replaces every `ActionHandler` record in host-supplied props, at any depth, by the handler
/// the parent instance holds under its token (`None`: nothing in them names one).
fn resolve_parent_handlers(
    machine: &mut Machine<'_>,
    supplied: Vec<(Name, Value)>,
    parent: Option<&InstanceData>,
    label: &str,
) -> IrResult<Vec<(Name, Value)>> {
    let root = Path::Root(label);
    let mut thawer = Thawer::default();
    let mut out = Vec::with_capacity(supplied.len());
    for (name, value) in supplied {
        let resolved = resolve_in(machine, &value, parent, &Path::Field(&root, &name), &mut thawer)?;
        out.push((name, resolved.unwrap_or(value)));
    }
    Ok(out)
}

fn resolve_in(
    machine: &mut Machine<'_>,
    value: &Value,
    parent: Option<&InstanceData>,
    path: &Path<'_>,
    thawer: &mut Thawer,
) -> IrResult<Option<Value>> {
    if !machine.stack_ok() {
        return Err(machine.value_stack_error());
    }
    machine.tally(1);
    match value {
        Value::Seq(items) => {
            let mut changed: Option<Vec<Value>> = None;
            for (at, item) in items.iter().enumerate() {
                if let Some(resolved) = resolve_in(machine, item, parent, &Path::Index(path, at), thawer)? {
                    changed.get_or_insert_with(|| items.to_vec())[at] = resolved;
                }
            }
            Ok(changed.map(Value::seq))
        }
        Value::Record(record) if record.type_name() == Some("ActionHandler") => {
            let Some(parent) = parent else {
                return Err(IrError::new(
                    codes::BOUNDARY_FIELD,
                    format!("Unknown field {path}: an ActionHandler record names a handler only through a parent instance."),
                ));
            };
            let token = record.get("token").and_then(Value::as_text).unwrap_or("");
            match parent.handler(token) {
                Some(handler) => Ok(Some(Value::Handler(thawer.handler(machine, handler)?))),
                None => Err(IrError::new(
                    codes::HANDLER_TOKEN,
                    format!("Unknown handler token '{token}' at {path} for the '{}' instance.", parent.component),
                )),
            }
        }
        Value::Record(record) => {
            let mut changed: Option<Vec<(Name, Value)>> = None;
            for (at, (name, field)) in record.fields.iter().enumerate() {
                if let Some(resolved) = resolve_in(machine, field, parent, &Path::Field(path, name), thawer)? {
                    changed.get_or_insert_with(|| record.fields.to_vec())[at].1 = resolved;
                }
            }
            Ok(changed.map(|fields| Value::Record(Record::new_rc(record.type_name.clone(), fields))))
        }
        _ => Ok(None),
    }
}

/// Evaluates component `name`'s body from props and an explicit state (`None`: the empty map);
/// the output's handlers carry no tokens.
pub fn evaluate_component(
    program: &CompiledProgram,
    name: &str,
    props: HostMap<'_>,
    state: HostMap<'_>,
    limits: &Limits,
) -> IrResult<(HostValue, Usage)> {
    let mut usage = Usage::default();
    let value = evaluate_component_with(program, name, props, state, limits, &mut HostValueBuilder, &mut usage, HostCall::default())?;
    Ok((value, usage))
}

/// [`evaluate_component`] into any sink; `usage` is filled on success and failure.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_component_with<K: HostValueSink>(
    program: &CompiledProgram,
    name: &str,
    props: HostMap<'_>,
    state: HostMap<'_>,
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<K::Out> {
    begin(limits, usage, |meter| {
        meter.map(props)?;
        if !meter.over() {
            meter.map(state)?;
        }
        Ok(())
    })?;
    with_machine(program, limits, usage, host, |machine| {
        let (index, decl) = machine.component_entrypoint(name)?;
        let shape = parts(decl);
        let Some(body) = shape.body.filter(|_| !shape.is_abstract) else {
            return Err(IrError::new(
                codes::COMPONENT,
                format!("Component '{name}' cannot be evaluated because it has no body."),
            ));
        };
        let path = Joined(&name, " props");
        let label = path.to_string();
        let input = machine.read_map(props)?;
        let (fields, _) = machine.split_handler_props(0, index, input, &path)?;
        let cx = entry_cx(index);
        let mut frame = Frame::new();
        machine.normalize_fields_bound(cx, shape.props, &fields, &mut frame, &Path::Root(&label), false)?;
        let given = machine.read_map(state)?;
        let state_label = format!("{name} state");
        machine.normalize_fields_bound(cx, shape.state, &given, &mut frame, &Path::Root(&state_label), true)?;
        let rendered = machine.eval(cx, &mut frame, body)?;
        machine.stop_long_run();
        Ok(machine.write_rendered(cx, &rendered, None, sink)?.0)
    })
}

/// Dispatches a batch against an instance and returns the next one (the given one is left as
/// it was). Each entry is an `ActionHandlerInvocation` (`{"$type": "ActionHandlerInvocation",
/// "token", "action"}`) naming a handler of the latest output, or an action the component
/// emits, which runs the handler the parent bound. One budget covers the batch and the render.
pub fn dispatch_component_actions(
    program: &CompiledProgram,
    instance: &ComponentInstance,
    batch: &[&HostValue],
    limits: &Limits,
) -> IrResult<(Dispatched<HostValue>, Usage)> {
    let mut usage = Usage::default();
    let value = dispatch_component_actions_with(program, instance, batch, limits, &mut HostValueBuilder, &mut usage, HostCall::default())?;
    Ok((value, usage))
}

/// [`dispatch_component_actions`] into any sink; `usage` is filled on success and failure.
#[allow(clippy::too_many_arguments)]
pub fn dispatch_component_actions_with<K: HostValueSink>(
    program: &CompiledProgram,
    instance: &ComponentInstance,
    batch: &[&HostValue],
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<Dispatched<K::Out>> {
    begin(limits, usage, |meter| {
        for entry in batch {
            if meter.over() {
                break;
            }
            meter.value(entry)?;
        }
        Ok(())
    })?;
    let data = &*instance.data;
    with_machine(program, limits, usage, host, |machine| {
        belongs(program, data)?;
        let found = machine.component_entrypoint(&data.component)?;
        let (index, decl) = found;
        let name = &decl.name;
        let shape = parts(decl);
        let Some(body) = shape.body else {
            return Err(IrError::new(codes::COMPONENT, format!("Component '{name}' has no body.")));
        };
        let owner = (0u32, index);
        let mut thawer = Thawer::default();
        let mut working = thawer.fields(machine, &data.state)?;
        let mut effects: Vec<Value> = Vec::new();
        let mut depths = Depths::default();
        // What an action entry is looked up among, indexed for a long batch (`NameIndex`): the
        // records the component emits (by name) and the handlers the parent bound.
        let prog = machine.prog;
        let emitted: Vec<(&Name, &Name, u32, u32)> = shape
            .emits
            .iter()
            .filter_map(|(emit, target)| match target {
                super::compiled::Target::Decl { module, decl } => Some((&prog.decl(*module, *decl).name, emit, *module, *decl)),
                _ => None,
            })
            .collect();
        machine.tally(shape.emits.len() as u64 + 1);
        let emitted_index = NameIndex::new(machine, emitted.iter().map(|(record, ..)| *record), batch.len());
        let bound_index = NameIndex::new(machine, data.handler_props.iter().map(|(prop, _)| prop), batch.len());
        for (position, entry) in batch.iter().enumerate() {
            let entry = machine.read_host(entry, 0)?;
            let Value::Record(object) = &entry else {
                return Err(IrError::new(codes::BOUNDARY_TYPE, format!("Expected dispatch entry {position} to be an object.")));
            };
            if object.type_name() == Some("ActionHandlerInvocation") {
                let Some(token) = object.get("token").and_then(Value::as_text) else {
                    return Err(IrError::new(
                        codes::BOUNDARY_TYPE,
                        format!("Expected dispatch entry {position} to carry a string 'token' read from rendered output."),
                    ));
                };
                let Some(held) = data.handler(token) else {
                    return Err(IrError::new(
                        codes::HANDLER_TOKEN,
                        format!("Unknown handler token '{token}' for the '{name}' instance."),
                    ));
                };
                let action = match object.get("action") {
                    Some(Value::Record(action)) => Rc::clone(action),
                    _ => {
                        return Err(IrError::new(
                            codes::BOUNDARY_TYPE,
                            format!("Expected dispatch entry {position}.action to be an object."),
                        ))
                    }
                };
                let handler = thawer.handler(machine, held)?;
                let owned = handler_owner(machine, &handler) == Some(owner);
                let live = owned.then_some((shape.props, shape.state, working.as_slice()));
                let results = machine.invoke_handler(&handler, &action, live)?;
                for result in results {
                    let patches = owned && shape.state_target.is_some_and(|target| machine.updates(&result, target));
                    match (&result, patches) {
                        (Value::Record(patch), true) => {
                            working = machine.patch_state(found, &working, patch, &mut depths)?;
                        }
                        _ => effects.push(result),
                    }
                }
                continue;
            }
            let Some(type_name) = object.type_name() else {
                return Err(IrError::new(
                    codes::BOUNDARY_TYPE,
                    format!("Expected dispatch entry {position} to be an action record with a '$type' discriminator."),
                ));
            };
            let at = emitted_index.find(machine, || emitted.iter().map(|(record, ..)| *record), type_name);
            let Some(&(_, emit, am, ad)) = at.map(|at| &emitted[at]) else {
                return Err(IrError::new(
                    codes::COMPONENT_ACTION,
                    format!("Component '{name}' does not emit '{type_name}'."),
                ));
            };
            let action = machine.normalize_action(am, ad, object, &Joined(&type_name, " action"))?;
            let property = format!("on{emit}");
            let bound = bound_index.find(machine, || data.handler_props.iter().map(|(prop, _)| prop), &property).map(|at| &data.handler_props[at]);
            if let (Some((_, held)), Value::Record(action)) = (bound, &action) {
                let handler = thawer.handler(machine, held)?;
                effects.extend(machine.invoke_handler(&handler, action, None)?);
            }
        }
        // The body sees the props and the state, as it did at initialization: a field the
        // instance holds no value for is an empty optional.
        let props = thawer.fields(machine, &data.props)?;
        let mut frame: Frame = Vec::with_capacity(shape.props.len() + shape.state.len());
        for (fields, held) in [(shape.props, &props), (shape.state, &working)] {
            let index = NameIndex::new(machine, held.iter().map(|(name, _)| name), fields.len());
            for field in fields {
                let at = index.find(machine, || held.iter().map(|(name, _)| name), &field.name);
                frame.push(Some(at.map_or_else(Value::empty, |at| held[at].1.clone())));
            }
        }
        let generation = data.generation.saturating_add(1);
        let cx = entry_cx(index);
        let rendered = machine.eval(cx, &mut frame, body)?;
        machine.stop_long_run();
        let (output, handlers) = machine.write_rendered(cx, &rendered, Some(generation), sink)?;
        let mut written = Vec::with_capacity(effects.len());
        for effect in &effects {
            written.push(machine.write(cx, effect, sink)?);
        }
        let state_out = machine.write_state(cx, &working, sink)?;
        let mut freezer = Freezer::default();
        let next = InstanceData {
            program: Arc::clone(&data.program),
            component: Name::clone(&data.component),
            props: Arc::clone(&data.props),
            handler_props: Arc::clone(&data.handler_props),
            state: freezer.fields(&working)?,
            handlers: handlers.iter().map(|h| freezer.handler(h)).collect::<IrResult<_>>()?,
            generation,
        };
        machine.tally(freezer.units);
        Ok(Dispatched { output, effects: written, state: state_out, instance: ComponentInstance { data: Arc::new(next) } })
    })
}

/// The component whose body bound `handler` (its node's owner), when one did.
fn handler_owner(machine: &Machine<'_>, handler: &super::value::Handler) -> Option<(u32, u32)> {
    let node = machine.prog.modules.get(handler.module as usize)?.nodes.get(handler.node as usize)?;
    match node {
        super::compiled::CNode::ActionHandler { owner: Some(super::compiled::Target::Decl { module, decl }), .. } => {
            Some((*module, *decl))
        }
        _ => None,
    }
}

/// Checks a complete state for component `name` and returns it normalized (explicit mode: no
/// default is filled in).
pub fn normalize_component_state(
    program: &CompiledProgram,
    name: &str,
    state: HostMap<'_>,
    limits: &Limits,
) -> IrResult<(HostValue, Usage)> {
    let mut usage = Usage::default();
    let value = normalize_component_state_with(program, name, state, limits, &mut HostValueBuilder, &mut usage, HostCall::default())?;
    Ok((value, usage))
}

/// [`normalize_component_state`] into any sink; `usage` is filled on success and failure.
#[allow(clippy::too_many_arguments)]
pub fn normalize_component_state_with<K: HostValueSink>(
    program: &CompiledProgram,
    name: &str,
    state: HostMap<'_>,
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<K::Out> {
    begin(limits, usage, |meter| meter.map(state))?;
    with_machine(program, limits, usage, host, |machine| {
        let (index, decl) = machine.component_entrypoint(name)?;
        let given = machine.read_map(state)?;
        let label = format!("{name} state");
        let cx = entry_cx(index);
        let mut frame = Frame::new();
        let state = machine.normalize_fields(cx, parts(decl).state, &given, &mut frame, &Path::Root(&label), true)?;
        machine.stop_long_run();
        machine.write_state(cx, &state, sink)
    })
}

/// Applies a patch to a state the host holds and returns the checked next state. The patch is
/// a plain record or the component's state update record (`<C>.Update` in schema 5,
/// `<C>.State.Update` in schema 6): a present field replaces, an absent one keeps, and a
/// present empty value (`null`) clears an optional field.
pub fn apply_component_state_patch(
    program: &CompiledProgram,
    name: &str,
    current: HostMap<'_>,
    patch: &HostValue,
    limits: &Limits,
) -> IrResult<(HostValue, Usage)> {
    let mut usage = Usage::default();
    let value =
        apply_component_state_patch_with(program, name, current, patch, limits, &mut HostValueBuilder, &mut usage, HostCall::default())?;
    Ok((value, usage))
}

/// [`apply_component_state_patch`] into any sink; `usage` is filled on success and failure.
#[allow(clippy::too_many_arguments)]
pub fn apply_component_state_patch_with<K: HostValueSink>(
    program: &CompiledProgram,
    name: &str,
    current: HostMap<'_>,
    patch: &HostValue,
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<K::Out> {
    begin(limits, usage, |meter| {
        meter.map(current)?;
        if !meter.over() {
            meter.value(&patch)?;
        }
        Ok(())
    })?;
    with_machine(program, limits, usage, host, |machine| {
        let found = machine.component_entrypoint(name)?;
        let patch = machine.read_host(&patch, 0)?;
        let Value::Record(patch) = &patch else {
            return Err(IrError::new(codes::BOUNDARY_TYPE, "Expected the state patch to be an object."));
        };
        let current = machine.read_map(current)?;
        let state = machine.patch_state(found, &current, patch, &mut Depths::default())?;
        machine.stop_long_run();
        machine.write_state(entry_cx(found.0), &state, sink)
    })
}
