//! Stored instances: a [`ComponentInstance`] written as bytes or JSON, so a host keeps a
//! conversation's state in its own store between requests, and read back, in any process, by
//! [`restore_component_instance`], which checks it against the program before anything runs.
//!
//! The stored form is a flat table of values, each naming only values before it: values shared
//! by the instance (every handler of a render captures the same frame) are written once, reading
//! needs no recursion, and no cycle can be written down. A handler is stored as the node it was
//! built from (module identity, declaration name, node index) and what it captured; the rest is
//! read from that node again. The instance also records the identity and image hash of every
//! module of its program: only a program linked from the very same images restores it.
//!
//! Restoring refuses, with `nx-ir-component`, input that is not a stored instance, an instance
//! of another program, a value named before it is written, one nesting deeper than
//! [`MAX_STORED_DEPTH`] or holding more than [`MAX_STORED_SIZE`] values written out, a function
//! or handler the program does not have (a handler node its declaration does not reach), and
//! props, state or handler properties the component does not accept.
//!
//! Bytes: `NXCI`, a version byte, then the same fields as the JSON form, integers as LEB128
//! varints (zig-zag for signed ones), floats as their 8 bytes, texts as a length and UTF-8.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::error::{codes, IrError, IrResult};

use super::super::compiled::{CDeclKind, CNode, CompiledProgram, Target};
use super::super::cost::Limits;
use super::super::host::{HostRecord, HostValue};
use super::super::json::{from_json, to_json};
use super::super::machine::{Frame, Machine};
use super::super::normalize::Path;
use super::super::value::{Name, Text, Value};
use super::held::{unchanged, Freezer, Held, HeldHandler, HeldRecord, Thawer};
use super::super::name_index::NameIndex;
use super::lifecycle::{entry_cx, parts, Joined};
use super::{ComponentInstance, InstanceData};

/// How deeply the values of a stored instance may nest, a handler's capture counting as a level.
pub const MAX_STORED_DEPTH: u32 = 1024;
/// How many values one value of a stored instance may hold written out (a value counted once
/// for every place it appears).
pub const MAX_STORED_SIZE: u64 = 1 << 24;

const MAGIC: &[u8; 4] = b"NXCI";
const VERSION: u8 = 1;
const JSON_FORMAT: &str = "nx-component-instance";

/// One entry of the table.
#[derive(Debug, Clone, PartialEq)]
enum Entry {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<u32>),
    Record { type_name: Option<String>, fields: Vec<(String, u32)> },
    Case(String),
    Function { module: String, name: String },
    Handler { module: String, declaration: String, node: u32, capture: Vec<Option<u32>> },
}

/// An instance as stored.
#[derive(Debug, Clone, PartialEq)]
struct Stored {
    program: Vec<(String, u64)>,
    component: String,
    generation: u64,
    values: Vec<Entry>,
    props: Vec<(String, u32)>,
    handler_props: Vec<(String, u32)>,
    state: Vec<(String, u32)>,
    handlers: Vec<u32>,
}

// ---- writing -------------------------------------------------------------------------------

struct Writer<'p> {
    program: &'p CompiledProgram,
    values: Vec<Entry>,
    /// Shared allocations written, by address; scalars are written again where they appear.
    written: super::held::AddressMap<u32>,
}

impl Writer<'_> {
    fn push(&mut self, entry: Entry) -> u32 {
        self.values.push(entry);
        (self.values.len() - 1) as u32
    }

    fn value(&mut self, held: &Held) -> u32 {
        let address = match held {
            Held::Seq(items) => Some(Arc::as_ptr(items) as *const u8 as usize),
            Held::Record(record) => Some(Arc::as_ptr(record) as *const u8 as usize),
            Held::Handler(handler) => Some(Arc::as_ptr(handler) as *const u8 as usize),
            _ => None,
        };
        if let Some(index) = address.and_then(|at| self.written.get(&at)) {
            return *index;
        }
        let entry = match held {
            Held::Bool(b) => Entry::Bool(*b),
            Held::Int(i) => Entry::Int(*i),
            Held::Float(f) => Entry::Float(*f),
            Held::Str(text) => Entry::Str(text.to_string()),
            Held::Case(case) => Entry::Case(case.to_string()),
            Held::Function(function) => {
                let module = &self.program.modules[function.module as usize];
                Entry::Function { module: module.identity.to_string(), name: module.decls[function.decl as usize].name.to_string() }
            }
            Held::Seq(items) => Entry::Seq(items.iter().map(|item| self.value(item)).collect()),
            Held::Record(record) => Entry::Record {
                type_name: record.type_name.as_deref().map(str::to_string),
                fields: record.fields.iter().map(|(name, field)| (name.to_string(), self.value(field))).collect(),
            },
            Held::Handler(handler) => {
                let capture = handler.capture.iter().map(|slot| slot.as_ref().map(|held| self.value(held))).collect();
                let module = &self.program.modules[handler.module as usize];
                Entry::Handler {
                    module: module.identity.to_string(),
                    declaration: module.decls[handler.decl as usize].name.to_string(),
                    node: handler.node,
                    capture,
                }
            }
        };
        let index = self.push(entry);
        if let Some(at) = address {
            self.written.insert(at, index);
        }
        index
    }

    fn fields(&mut self, fields: &[(Name, Held)]) -> Vec<(String, u32)> {
        fields.iter().map(|(name, held)| (name.to_string(), self.value(held))).collect()
    }

    fn handler(&mut self, handler: &Arc<HeldHandler>) -> u32 {
        self.value(&Held::Handler(Arc::clone(handler)))
    }
}

fn stored_of(program: &CompiledProgram, data: &InstanceData) -> Stored {
    let mut writer = Writer { program, values: Vec::new(), written: Default::default() };
    let props = writer.fields(&data.props);
    let handler_props = data.handler_props.iter().map(|(name, handler)| (name.to_string(), writer.handler(handler))).collect();
    let state = writer.fields(&data.state);
    let handlers = data.handlers.iter().map(|handler| writer.handler(handler)).collect();
    Stored {
        program: data.program.iter().map(|(identity, hash)| (identity.to_string(), *hash)).collect(),
        component: data.component.to_string(),
        generation: data.generation,
        values: writer.values,
        props,
        handler_props,
        state,
        handlers,
    }
}

impl ComponentInstance {
    /// The instance as bytes, for [`restore_component_instance`]. `program` must be the
    /// program that made it (handlers and functions are written by module and name).
    pub fn to_bytes(&self, program: &CompiledProgram) -> IrResult<Vec<u8>> {
        super::belongs(program, &self.data)?;
        Ok(encode_bytes(&stored_of(program, &self.data)))
    }

    /// The instance as JSON text, for [`restore_component_instance_json`].
    pub fn to_json(&self, program: &CompiledProgram) -> IrResult<String> {
        super::belongs(program, &self.data)?;
        Ok(to_json(&encode_json(&stored_of(program, &self.data))))
    }
}

// ---- restoring -----------------------------------------------------------------------------

fn refuse<T>(what: impl std::fmt::Display) -> IrResult<T> {
    Err(IrError::new(codes::COMPONENT, format!("The serialized instance does not belong to this program: {what}.")))
}

fn not_an_instance(why: impl std::fmt::Display) -> IrError {
    IrError::new(codes::COMPONENT, format!("The input is not a serialized component instance: {why}."))
}

/// Restores an instance from [`ComponentInstance::to_bytes`] for `program`, checking it
/// against the program (see the module documentation).
pub fn restore_component_instance(program: &CompiledProgram, bytes: &[u8]) -> IrResult<ComponentInstance> {
    restore(program, decode_bytes(bytes)?)
}

/// Restores an instance from [`ComponentInstance::to_json`] for `program`.
pub fn restore_component_instance_json(program: &CompiledProgram, text: &str) -> IrResult<ComponentInstance> {
    let value = from_json(text).map_err(|error| not_an_instance(error.message()))?;
    restore(program, decode_json(&value)?)
}

/// How deeply an entry nests and how many values it holds written out.
#[derive(Clone, Copy)]
struct Extent {
    depth: u32,
    size: u64,
}

fn restore(program: &CompiledProgram, stored: Stored) -> IrResult<ComponentInstance> {
    let mut images: Vec<(Arc<str>, u64)> = stored.program.iter().map(|(id, hash)| (Arc::from(id.as_str()), *hash)).collect();
    images.sort();
    if *program.images != *images {
        return Err(IrError::new(
            codes::COMPONENT,
            format!("The instance of '{}' was initialized by another program.", stored.component),
        ));
    }
    let limits = Limits::default();
    let mut machine = Machine::new(program, &limits);
    let (index, decl) = machine.component_entrypoint(&stored.component)?;
    let shape = parts(decl);
    let mut reader = Reader { program, values: Vec::with_capacity(stored.values.len().min(1 << 20)), reachable: HashMap::new() };
    for entry in stored.values {
        let read = reader.entry(entry)?;
        reader.values.push(read);
    }
    let fields = |reader: &Reader<'_>, fields: &[(String, u32)]| -> IrResult<Vec<(Name, Held)>> {
        fields.iter().map(|(name, at)| Ok((Name::counted(name.as_str()), reader.get(*at)?.0.clone()))).collect()
    };
    let read_props = fields(&reader, &stored.props)?;
    let read_state = fields(&reader, &stored.state)?;
    let mut bound = Vec::with_capacity(stored.handler_props.len());
    for (name, at) in &stored.handler_props {
        bound.push((Name::counted(name.as_str()), reader.handler(*at)?));
    }
    let handlers = stored.handlers.iter().map(|at| reader.handler(*at)).collect::<IrResult<Box<[_]>>>()?;

    // Props and state are checked as host input is, with nothing filled in: an instance holds
    // every field that is not an empty optional.
    let cx = entry_cx(index);
    let name = &decl.name;
    let mut thawer = Thawer::default();
    let props = thawer.fields(&mut machine, &read_props)?;
    let state = thawer.fields(&mut machine, &read_state)?;
    let mut frame = Frame::new();
    let props_label = format!("{name} props");
    let props = machine.normalize_fields(cx, shape.props, &props, &mut frame, &Path::Root(&props_label), true).or_else(refuse)?;
    let state_label = format!("{name} state");
    let state = machine.normalize_fields(cx, shape.state, &state, &mut frame, &Path::Root(&state_label), true).or_else(refuse)?;
    let mut thawed = Vec::with_capacity(bound.len());
    for (prop, handler) in &bound {
        thawed.push((machine.prog_name(prop), Value::Handler(thawer.handler(&mut machine, handler)?)));
    }
    let (others, _) = machine.split_handler_props(0, index, thawed, &Joined(&&**name, " props")).or_else(refuse)?;
    if let Some((key, _)) = others.first() {
        return refuse(format_args!("'{key}' is not a handler property of '{name}'"));
    }
    let mut freezer = Freezer::default();
    let data = InstanceData {
        program: Arc::clone(&program.images),
        component: Name::clone(name),
        props: keep_read(&mut machine, &mut freezer, &thawer, &props, &read_props)?.into(),
        handler_props: bound.into(),
        state: keep_read(&mut machine, &mut freezer, &thawer, &state, &read_state)?,
        handlers,
        generation: stored.generation,
    };
    Ok(ComponentInstance { data: Arc::new(data) })
}

/// The checked fields `checked` as the instance holds them: a field checking left as it was
/// read is the very value read, still one with the handlers' captures that hold it (the stored
/// form wrote it once); the others are frozen anew.
fn keep_read(
    machine: &mut Machine<'_>,
    freezer: &mut Freezer,
    thawer: &Thawer,
    checked: &[(Name, Value)],
    read: &[(Name, Held)],
) -> IrResult<Box<[(Name, Held)]>> {
    let index = NameIndex::new(machine, read.iter().map(|(name, _)| name), checked.len());
    checked
        .iter()
        .map(|(name, value)| {
            let at = index.find(machine, || read.iter().map(|(name, _)| name), name);
            let held = match at.map(|at| &read[at]) {
                Some((_, held)) if unchanged(thawer, value, held) => held.clone(),
                _ => freezer.value(value, 0)?,
            };
            Ok((Name::clone(name), held))
        })
        .collect()
}

struct Reader<'p> {
    program: &'p CompiledProgram,
    values: Vec<(Held, Extent)>,
    /// The nodes each declaration reaches from its body and defaults, found when first asked.
    reachable: HashMap<(u32, u32), HashSet<u32>>,
}

impl Reader<'_> {
    fn get(&self, index: u32) -> IrResult<&(Held, Extent)> {
        match self.values.get(index as usize) {
            Some(entry) => Ok(entry),
            None => refuse(format_args!("value {index} is named before it is written")),
        }
    }

    fn handler(&self, index: u32) -> IrResult<Arc<HeldHandler>> {
        match &self.get(index)?.0 {
            Held::Handler(handler) => Ok(Arc::clone(handler)),
            _ => refuse(format_args!("value {index} is not a handler")),
        }
    }

    fn entry(&mut self, entry: Entry) -> IrResult<(Held, Extent)> {
        let mut extent = Extent { depth: 0, size: 1 };
        let mut child = |reader: &Self, index: u32| -> IrResult<Held> {
            let (held, nested) = reader.get(index)?;
            extent.depth = extent.depth.max(nested.depth.saturating_add(1));
            extent.size = extent.size.saturating_add(nested.size);
            Ok(held.clone())
        };
        let held = match entry {
            Entry::Bool(b) => Held::Bool(b),
            Entry::Int(i) => Held::Int(i),
            Entry::Float(f) => Held::Float(f),
            Entry::Str(text) => Held::Str(Text::new(&text)),
            Entry::Case(case) => Held::Case(Name::counted(case.as_str())),
            Entry::Seq(items) => Held::Seq(items.into_iter().map(|at| child(self, at)).collect::<IrResult<Vec<_>>>()?.into()),
            Entry::Record { type_name, fields } => Held::Record(Arc::new(HeldRecord {
                type_name: type_name.map(|name| Name::counted(name.as_str())),
                fields: fields
                    .into_iter()
                    .map(|(name, at)| Ok((Name::counted(name.as_str()), child(self, at)?)))
                    .collect::<IrResult<_>>()?,
                normal_of: None,
            })),
            Entry::Function { module, name } => match self.program.resolve_function(&module, &name, &"it") {
                Ok(function) => Held::Function(function),
                Err(error) => return refuse(error.message()),
            },
            Entry::Handler { module, declaration, node, capture } => {
                let capture = capture.into_iter().map(|slot| slot.map(|at| child(self, at)).transpose()).collect::<IrResult<_>>()?;
                Held::Handler(Arc::new(self.read_handler(&module, &declaration, node, capture)?))
            }
        };
        if extent.depth > MAX_STORED_DEPTH {
            return refuse(format_args!("a value nests more than {MAX_STORED_DEPTH} levels deep"));
        }
        if extent.size > MAX_STORED_SIZE {
            return refuse(format_args!("a value holds more than {MAX_STORED_SIZE} values"));
        }
        Ok((held, extent))
    }

    /// The handler node `node` of `declaration` is, which it must be and which the declaration
    /// must reach.
    fn read_handler(&mut self, identity: &str, declaration: &str, node: u32, capture: Box<[Option<Held>]>) -> IrResult<HeldHandler> {
        let program = self.program;
        let Some(module) = program.module_by_identity(identity) else {
            return refuse(format_args!("it names module '{identity}'"));
        };
        let Some(decl) = program.modules[module as usize].decl_by_name.get(declaration).copied() else {
            return refuse(format_args!("it names declaration '{declaration}'"));
        };
        let Some(CNode::ActionHandler { component, emit, action, owner, .. }) = program.modules[module as usize].nodes.get(node as usize) else {
            return refuse(format_args!("node {node} is not a handler"));
        };
        if !self.reaches(module, decl, node) {
            return refuse(format_args!("node {node} is not a handler of '{declaration}'"));
        }
        let resolve = |target: &Target| match target {
            Target::Decl { module, decl } => Ok((*module, *decl)),
            Target::Missing(message) => refuse(message),
        };
        let (am, ad) = resolve(action)?;
        let (cm, cd) = resolve(component)?;
        if let Some(owner) = owner {
            resolve(owner)?;
        }
        let component_key = Name::clone(program.qualified(cm, cd));
        Ok(HeldHandler {
            module,
            decl,
            node,
            component_key,
            emit: Name::clone(emit),
            action: Name::clone(&program.decl(am, ad).name),
            capture,
        })
    }

    /// Whether `decl` of `module` reaches node `target` from its body or a default.
    fn reaches(&mut self, module: u32, decl: u32, target: u32) -> bool {
        let program = self.program;
        self.reachable
            .entry((module, decl))
            .or_insert_with(|| {
                let mut pending: Vec<u32> = Vec::new();
                let defaults = |fields: &[super::super::compiled::CField], pending: &mut Vec<u32>| {
                    pending.extend(fields.iter().filter_map(|field| field.default));
                };
                match &program.decl(module, decl).kind {
                    CDeclKind::Function { params, body, .. } => {
                        pending.push(*body);
                        defaults(params, &mut pending);
                    }
                    CDeclKind::Value { init, .. } => pending.push(*init),
                    CDeclKind::Record { fields, .. } => defaults(fields, &mut pending),
                    CDeclKind::Component { props, state, body, .. } => {
                        pending.extend(*body);
                        defaults(props, &mut pending);
                        defaults(state, &mut pending);
                    }
                    CDeclKind::Union { cases, .. } => cases.iter().for_each(|case| defaults(&case.fields, &mut pending)),
                    CDeclKind::TypeAlias => {}
                }
                let nodes = &program.modules[module as usize].nodes;
                let mut seen = HashSet::new();
                while let Some(node) = pending.pop() {
                    if let Some(found) = nodes.get(node as usize) {
                        if seen.insert(node) {
                            children(found, &mut pending);
                        }
                    }
                }
                seen
            })
            .contains(&target)
    }
}

/// The nodes a node evaluates (or builds a handler of).
fn children(node: &CNode, out: &mut Vec<u32>) {
    match node {
        CNode::Bool(_) | CNode::Str(_) | CNode::Int(_) | CNode::Float(_) | CNode::BadLiteral(_) | CNode::Slot { .. } => {}
        CNode::Reference(_) | CNode::Interval(_) => {}
        CNode::Binary { lhs, rhs, .. } => out.extend([*lhs, *rhs]),
        CNode::Neg(a) | CNode::Not(a) | CNode::Exists(a) => out.push(*a),
        CNode::Call { callee, args } => {
            out.push(*callee);
            out.extend(args.iter().flatten());
        }
        CNode::NamedCall { callee, args, .. } => {
            out.push(*callee);
            out.extend(args.iter().map(|(_, node)| *node));
        }
        CNode::Intrinsic { args, .. } | CNode::StandardMath { args, .. } | CNode::StandardColor { args, .. } => out.extend(args.iter()),
        CNode::If { cond, then, otherwise } => {
            out.extend([*cond, *then]);
            out.extend(*otherwise);
        }
        CNode::IfIs { scrutinee, arms, otherwise } => {
            out.push(*scrutinee);
            for (patterns, body) in arms.iter() {
                out.extend(patterns.iter());
                out.push(*body);
            }
            out.extend(*otherwise);
        }
        CNode::Array(items) => out.extend(items.iter()),
        CNode::For { iterable, body, .. } => out.extend([*iterable, *body]),
        CNode::Member { base, .. } => out.push(*base),
        CNode::Record { props, content, .. }
        | CNode::UnionCase { props, content, .. }
        | CNode::Element { props, content, .. }
        | CNode::Component { props, content, .. } => {
            out.extend(props.iter().map(|(_, node)| *node));
            out.extend(content.iter());
        }
        CNode::ActionHandler { body, .. } => out.push(*body),
        CNode::Text { operand, .. } => out.push(*operand),
        CNode::Coalesce { left, right } => out.extend([*left, *right]),
        CNode::Check { operand, .. } => out.push(*operand),
    }
}

// ---- bytes ---------------------------------------------------------------------------------

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn put_fields(out: &mut Vec<u8>, fields: &[(String, u32)]) {
    put_varint(out, fields.len() as u64);
    for (name, at) in fields {
        put_text(out, name);
        put_varint(out, u64::from(*at));
    }
}

fn encode_bytes(stored: &Stored) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    put_varint(&mut out, stored.program.len() as u64);
    for (identity, hash) in &stored.program {
        put_text(&mut out, identity);
        out.extend_from_slice(&hash.to_le_bytes());
    }
    put_text(&mut out, &stored.component);
    put_varint(&mut out, stored.generation);
    put_varint(&mut out, stored.values.len() as u64);
    for entry in &stored.values {
        match entry {
            Entry::Bool(b) => out.extend([0, u8::from(*b)]),
            Entry::Int(i) => {
                out.push(1);
                put_varint(&mut out, ((i << 1) ^ (i >> 63)) as u64);
            }
            Entry::Float(f) => {
                out.push(2);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            Entry::Str(text) => {
                out.push(3);
                put_text(&mut out, text);
            }
            Entry::Seq(items) => {
                out.push(4);
                put_varint(&mut out, items.len() as u64);
                for at in items {
                    put_varint(&mut out, u64::from(*at));
                }
            }
            Entry::Record { type_name, fields } => {
                out.push(5);
                match type_name {
                    None => out.push(0),
                    Some(name) => {
                        out.push(1);
                        put_text(&mut out, name);
                    }
                }
                put_fields(&mut out, fields);
            }
            Entry::Case(case) => {
                out.push(6);
                put_text(&mut out, case);
            }
            Entry::Function { module, name } => {
                out.push(7);
                put_text(&mut out, module);
                put_text(&mut out, name);
            }
            Entry::Handler { module, declaration, node, capture } => {
                out.push(8);
                put_text(&mut out, module);
                put_text(&mut out, declaration);
                put_varint(&mut out, u64::from(*node));
                put_varint(&mut out, capture.len() as u64);
                for slot in capture {
                    // 0: an unbound slot; n + 1: value n.
                    put_varint(&mut out, slot.map_or(0, |at| u64::from(at) + 1));
                }
            }
        }
    }
    put_fields(&mut out, &stored.props);
    put_fields(&mut out, &stored.handler_props);
    put_fields(&mut out, &stored.state);
    put_varint(&mut out, stored.handlers.len() as u64);
    for at in &stored.handlers {
        put_varint(&mut out, u64::from(*at));
    }
    out
}

struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn fail<T>(&self, what: &str) -> IrResult<T> {
        Err(not_an_instance(format_args!("{what} at byte {}", self.at)))
    }

    fn byte(&mut self) -> IrResult<u8> {
        match self.bytes.get(self.at) {
            Some(byte) => {
                self.at += 1;
                Ok(*byte)
            }
            None => self.fail("the bytes end early"),
        }
    }

    fn take(&mut self, count: usize) -> IrResult<&'a [u8]> {
        match self.at.checked_add(count).and_then(|end| self.bytes.get(self.at..end)) {
            Some(taken) => {
                self.at += count;
                Ok(taken)
            }
            None => self.fail("the bytes end early"),
        }
    }

    fn varint(&mut self) -> IrResult<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                if shift == 63 && byte > 1 {
                    return self.fail("a number is too large");
                }
                return Ok(value);
            }
        }
        self.fail("a number is too long")
    }

    fn index(&mut self) -> IrResult<u32> {
        u32::try_from(self.varint()?).or_else(|_| self.fail("an index is too large"))
    }

    /// A count of items, each taking at least `least` bytes: no more than the bytes left hold.
    fn count(&mut self, least: usize) -> IrResult<usize> {
        let count = self.varint()?;
        let left = (self.bytes.len() - self.at) as u64;
        if count.saturating_mul(least as u64) > left {
            return self.fail("a count is larger than the bytes left");
        }
        Ok(count as usize)
    }

    fn text(&mut self) -> IrResult<String> {
        let length = self.count(1)?;
        let bytes = self.take(length)?;
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text.to_string()),
            Err(_) => self.fail("a text is not UTF-8"),
        }
    }

    fn fields(&mut self) -> IrResult<Vec<(String, u32)>> {
        let count = self.count(2)?;
        let mut fields = Vec::with_capacity(count);
        for _ in 0..count {
            fields.push((self.text()?, self.index()?));
        }
        Ok(fields)
    }

    fn u64_le(&mut self) -> IrResult<u64> {
        let bytes = self.take(8)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }
}

fn decode_bytes(bytes: &[u8]) -> IrResult<Stored> {
    let mut r = Bytes { bytes, at: 0 };
    if r.take(4).ok() != Some(MAGIC.as_slice()) {
        return Err(not_an_instance("it does not start with NXCI"));
    }
    if r.byte()? != VERSION {
        return r.fail("an unknown version");
    }
    let count = r.count(9)?;
    let mut program = Vec::with_capacity(count);
    for _ in 0..count {
        program.push((r.text()?, r.u64_le()?));
    }
    let component = r.text()?;
    let generation = r.varint()?;
    let count = r.count(2)?;
    let mut values = Vec::with_capacity(count);
    for _ in 0..count {
        let entry = match r.byte()? {
            0 => Entry::Bool(match r.byte()? {
                0 => false,
                1 => true,
                _ => return r.fail("a boolean is neither 0 nor 1"),
            }),
            1 => {
                let zigzag = r.varint()?;
                Entry::Int(((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64))
            }
            2 => Entry::Float(f64::from_bits(r.u64_le()?)),
            3 => Entry::Str(r.text()?),
            4 => {
                let count = r.count(1)?;
                let mut items = Vec::with_capacity(count);
                for _ in 0..count {
                    items.push(r.index()?);
                }
                Entry::Seq(items)
            }
            5 => {
                let type_name = match r.byte()? {
                    0 => None,
                    1 => Some(r.text()?),
                    _ => return r.fail("a record's type name is neither absent nor present"),
                };
                Entry::Record { type_name, fields: r.fields()? }
            }
            6 => Entry::Case(r.text()?),
            7 => Entry::Function { module: r.text()?, name: r.text()? },
            8 => {
                let module = r.text()?;
                let declaration = r.text()?;
                let node = r.index()?;
                let count = r.count(1)?;
                let mut capture = Vec::with_capacity(count);
                for _ in 0..count {
                    capture.push(match r.varint()? {
                        0 => None,
                        n => Some(u32::try_from(n - 1).or_else(|_| r.fail("an index is too large"))?),
                    });
                }
                Entry::Handler { module, declaration, node, capture }
            }
            _ => return r.fail("an unknown kind of value"),
        };
        values.push(entry);
    }
    let props = r.fields()?;
    let handler_props = r.fields()?;
    let state = r.fields()?;
    let count = r.count(1)?;
    let mut handlers = Vec::with_capacity(count);
    for _ in 0..count {
        handlers.push(r.index()?);
    }
    if r.at != bytes.len() {
        return r.fail("bytes follow the instance");
    }
    Ok(Stored { program, component, generation, values, props, handler_props, state, handlers })
}

// ---- JSON ----------------------------------------------------------------------------------

fn text_value(text: &str) -> HostValue {
    HostValue::Str(text.to_string())
}

fn index_value(at: u32) -> HostValue {
    HostValue::Int(i64::from(at))
}

fn fields_value(fields: &[(String, u32)]) -> HostValue {
    HostValue::List(fields.iter().map(|(name, at)| HostValue::List(vec![text_value(name), index_value(*at)])).collect())
}

fn encode_json(stored: &Stored) -> HostValue {
    let values = stored
        .values
        .iter()
        .map(|entry| {
            let items = match entry {
                Entry::Bool(b) => vec![text_value("bool"), HostValue::Bool(*b)],
                // Integers and floats as text: exact, whatever a JSON reader does with numbers.
                Entry::Int(i) => vec![text_value("int"), text_value(&i.to_string())],
                Entry::Float(f) => vec![text_value("float"), text_value(&format!("{:016x}", f.to_bits()))],
                Entry::Str(text) => vec![text_value("str"), text_value(text)],
                Entry::Seq(items) => vec![text_value("seq"), HostValue::List(items.iter().map(|at| index_value(*at)).collect())],
                Entry::Record { type_name, fields } => vec![
                    text_value("record"),
                    type_name.as_deref().map_or(HostValue::Null, text_value),
                    fields_value(fields),
                ],
                Entry::Case(case) => vec![text_value("case"), text_value(case)],
                Entry::Function { module, name } => vec![text_value("function"), text_value(module), text_value(name)],
                Entry::Handler { module, declaration, node, capture } => vec![
                    text_value("handler"),
                    text_value(module),
                    text_value(declaration),
                    index_value(*node),
                    HostValue::List(capture.iter().map(|slot| slot.map_or(HostValue::Null, index_value)).collect()),
                ],
            };
            HostValue::List(items)
        })
        .collect();
    let record = HostRecord::new(None)
        .with("format", text_value(JSON_FORMAT))
        .with("version", HostValue::Int(i64::from(VERSION)))
        .with(
            "program",
            HostValue::List(
                stored
                    .program
                    .iter()
                    .map(|(identity, hash)| HostValue::List(vec![text_value(identity), text_value(&format!("{hash:016x}"))]))
                    .collect(),
            ),
        )
        .with("component", text_value(&stored.component))
        .with("generation", text_value(&stored.generation.to_string()))
        .with("values", HostValue::List(values))
        .with("props", fields_value(&stored.props))
        .with("handlerProps", fields_value(&stored.handler_props))
        .with("state", fields_value(&stored.state))
        .with("handlers", HostValue::List(stored.handlers.iter().map(|at| index_value(*at)).collect()));
    HostValue::Record(record)
}

fn json_fail<T>(what: &str) -> IrResult<T> {
    Err(not_an_instance(what))
}

fn json_text(value: Option<&HostValue>, what: &str) -> IrResult<String> {
    match value {
        Some(HostValue::Str(text)) => Ok(text.clone()),
        _ => json_fail(&format!("{what} is not a string")),
    }
}

fn json_index(value: Option<&HostValue>, what: &str) -> IrResult<u32> {
    match value {
        Some(HostValue::Int(i)) => u32::try_from(*i).or_else(|_| json_fail(&format!("{what} is not an index"))),
        _ => json_fail(&format!("{what} is not an index")),
    }
}

fn json_list<'v>(value: Option<&'v HostValue>, what: &str) -> IrResult<&'v [HostValue]> {
    match value {
        Some(HostValue::List(items)) => Ok(items),
        _ => json_fail(&format!("{what} is not a list")),
    }
}

fn json_fields(value: Option<&HostValue>, what: &str) -> IrResult<Vec<(String, u32)>> {
    json_list(value, what)?
        .iter()
        .map(|pair| {
            let pair = json_list(Some(pair), what)?;
            if pair.len() != 2 {
                return json_fail(&format!("{what} holds a pair of another length"));
            }
            Ok((json_text(pair.first(), what)?, json_index(pair.get(1), what)?))
        })
        .collect()
}

fn json_hex(value: Option<&HostValue>, what: &str) -> IrResult<u64> {
    let text = json_text(value, what)?;
    if text.len() != 16 {
        return json_fail(&format!("{what} is not 16 hexadecimal digits"));
    }
    u64::from_str_radix(&text, 16).or_else(|_| json_fail(&format!("{what} is not 16 hexadecimal digits")))
}

fn decode_json(value: &HostValue) -> IrResult<Stored> {
    let HostValue::Record(record) = value else { return json_fail("it is not an object") };
    if json_text(record.get("format"), "format")? != JSON_FORMAT {
        return json_fail("its format is not nx-component-instance");
    }
    if !matches!(record.get("version"), Some(HostValue::Int(v)) if *v == i64::from(VERSION)) {
        return json_fail("an unknown version");
    }
    let program = json_list(record.get("program"), "program")?
        .iter()
        .map(|pair| {
            let pair = json_list(Some(pair), "a program module")?;
            if pair.len() != 2 {
                return json_fail("a program module is not an identity and a hash");
            }
            Ok((json_text(pair.first(), "a module identity")?, json_hex(pair.get(1), "an image hash")?))
        })
        .collect::<IrResult<_>>()?;
    let generation = json_text(record.get("generation"), "generation")?
        .parse::<u64>()
        .or_else(|_| json_fail("generation is not a whole number"))?;
    let mut values = Vec::new();
    for item in json_list(record.get("values"), "values")? {
        let parts = json_list(Some(item), "a value")?;
        let kind = json_text(parts.first(), "a value's kind")?;
        let arity = |n: usize| if parts.len() == n { Ok(()) } else { json_fail(&format!("a {kind} value has {} parts", parts.len())) };
        let entry = match kind.as_str() {
            "bool" => {
                arity(2)?;
                match parts.get(1) {
                    Some(HostValue::Bool(b)) => Entry::Bool(*b),
                    _ => return json_fail("a bool value is not a boolean"),
                }
            }
            "int" => {
                arity(2)?;
                Entry::Int(json_text(parts.get(1), "an int")?.parse::<i64>().or_else(|_| json_fail("an int is not an integer"))?)
            }
            "float" => {
                arity(2)?;
                Entry::Float(f64::from_bits(json_hex(parts.get(1), "a float")?))
            }
            "str" => {
                arity(2)?;
                Entry::Str(json_text(parts.get(1), "a string")?)
            }
            "seq" => {
                arity(2)?;
                Entry::Seq(json_list(parts.get(1), "a list")?.iter().map(|at| json_index(Some(at), "a list item")).collect::<IrResult<_>>()?)
            }
            "record" => {
                arity(3)?;
                let type_name = match parts.get(1) {
                    Some(HostValue::Null) => None,
                    other => Some(json_text(other, "a record's type name")?),
                };
                Entry::Record { type_name, fields: json_fields(parts.get(2), "a record's fields")? }
            }
            "case" => {
                arity(2)?;
                Entry::Case(json_text(parts.get(1), "a case")?)
            }
            "function" => {
                arity(3)?;
                Entry::Function { module: json_text(parts.get(1), "a function's module")?, name: json_text(parts.get(2), "a function's name")? }
            }
            "handler" => {
                arity(5)?;
                let capture = json_list(parts.get(4), "a handler's capture")?
                    .iter()
                    .map(|slot| match slot {
                        HostValue::Null => Ok(None),
                        other => json_index(Some(other), "a captured value").map(Some),
                    })
                    .collect::<IrResult<_>>()?;
                Entry::Handler {
                    module: json_text(parts.get(1), "a handler's module")?,
                    declaration: json_text(parts.get(2), "a handler's declaration")?,
                    node: json_index(parts.get(3), "a handler's node")?,
                    capture,
                }
            }
            _ => return json_fail(&format!("'{kind}' is not a kind of value")),
        };
        values.push(entry);
    }
    Ok(Stored {
        program,
        component: json_text(record.get("component"), "component")?,
        generation,
        values,
        props: json_fields(record.get("props"), "props")?,
        handler_props: json_fields(record.get("handlerProps"), "handlerProps")?,
        state: json_fields(record.get("state"), "state")?,
        handlers: json_list(record.get("handlers"), "handlers")?.iter().map(|at| json_index(Some(at), "a handler")).collect::<IrResult<_>>()?,
    })
}
