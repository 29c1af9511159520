//! Values an instance holds between calls.
//!
//! The evaluator's values are `Rc`-based and live on the thread of one call (value declarations
//! are even cached per thread), so an instance cannot keep them: a host may dispatch the next
//! batch from another thread. An instance holds [`Held`] values instead: the same shapes behind
//! atomically counted pointers. A call thaws what it needs into evaluator values and freezes what
//! it hands on; both walks keep sharing (every handler of one render captures the same frame) by
//! remembering each allocation more than one place holds. Both refuse, rather than overflow, a
//! host thread whose stack is too short for the next levels ([`walk_stack_at`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::Arc;

use crate::error::{codes, IrError, IrResult};

use super::super::cost::walk_stack_at;
use super::super::machine::Machine;
use super::super::value::{CaseValue, FunctionRef, Handler, Name, Record, Text, Value};

/// How deeply held values may nest: far past what one evaluation can build (expressions nest at
/// most 1,000 levels, host values and state 256), so only damaged input meets it.
pub(crate) const MAX_HELD_DEPTH: u32 = 4096;

/// A value as an instance holds it.
#[derive(Debug, Clone)]
pub(crate) enum Held {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Text),
    Seq(Arc<[Held]>),
    Record(Arc<HeldRecord>),
    Case(Name),
    Function(FunctionRef),
    Handler(Arc<HeldHandler>),
}

impl Held {
    /// Whether it holds other values (a list, a record or a handler's capture).
    pub(crate) fn is_container(&self) -> bool {
        matches!(self, Held::Seq(_) | Held::Record(_) | Held::Handler(_))
    }
}

#[derive(Debug)]
pub(crate) struct HeldRecord {
    pub type_name: Option<Name>,
    pub fields: Box<[(Name, Held)]>,
    /// As [`Record::normal_of`].
    pub normal_of: Option<(u32, u32)>,
}

/// An action handler: the handler node it was built from (module, declaration, node), what it
/// answers, and the frame it captured.
#[derive(Debug)]
pub(crate) struct HeldHandler {
    pub module: u32,
    pub decl: u32,
    pub node: u32,
    pub component_key: Name,
    pub emit: Name,
    pub action: Name,
    pub capture: Box<[Option<Held>]>,
}

/// A hasher for allocation addresses (no host chooses them): one multiply.
#[derive(Default, Clone, Copy)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, value: usize) {
        self.0 = (value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Drops `pending` and what it holds a level at a time, from a list rather than in a recursion
/// as deep as the values nest: a restored instance may hold values 1,024 levels deep, more than
/// a host thread with a small stack can drop recursively. A container whose last holder this is
/// gives up its containers to the list before it drops, so it drops holding none.
pub(crate) fn drop_flat(mut pending: Vec<Held>) {
    while let Some(mut held) = pending.pop() {
        match &mut held {
            Held::Seq(items) => {
                if let Some(items) = Arc::get_mut(items) {
                    items.iter_mut().for_each(|item| take_container(item, &mut pending));
                }
            }
            Held::Record(record) => {
                if let Some(record) = Arc::get_mut(record) {
                    record.fields.iter_mut().for_each(|(_, field)| take_container(field, &mut pending));
                }
            }
            Held::Handler(handler) => take_capture(handler, &mut pending),
            _ => {}
        }
    }
}

/// Moves `held` to `pending` when it is a container, leaving a scalar in its place.
fn take_container(held: &mut Held, pending: &mut Vec<Held>) {
    if held.is_container() {
        pending.push(std::mem::replace(held, Held::Bool(false)));
    }
}

/// Moves what a handler whose last holder this is captured to `pending`.
fn take_capture(handler: &mut Arc<HeldHandler>, pending: &mut Vec<Held>) {
    if let Some(handler) = Arc::get_mut(handler) {
        pending.extend(handler.capture.iter_mut().filter_map(Option::take));
    }
}

/// A map keyed by allocation addresses.
pub(crate) type AddressMap<V> = HashMap<usize, V, BuildHasherDefault<AddressHasher>>;

fn too_deep() -> IrError {
    IrError::new(codes::COMPONENT, format!("A component instance holds values nested more than {MAX_HELD_DEPTH} levels deep."))
}

/// Evaluator values → held values, keeping what is shared shared.
#[derive(Default)]
pub(crate) struct Freezer {
    seen: AddressMap<Held>,
    /// Work units (`eval::work`): one a value asked for, one a name or slot of each record or
    /// handler made.
    pub units: u64,
}

impl Freezer {
    pub fn fields(&mut self, fields: &[(Name, Value)]) -> IrResult<Box<[(Name, Held)]>> {
        self.units += fields.len() as u64;
        fields.iter().map(|(name, value)| Ok((Name::clone(name), self.value(value, 0)?))).collect()
    }

    pub fn handler(&mut self, handler: &Rc<Handler>) -> IrResult<Arc<HeldHandler>> {
        match self.value(&Value::Handler(Rc::clone(handler)), 0)? {
            Held::Handler(held) => Ok(held),
            _ => Err(IrError::new(codes::COMPONENT, "A handler did not freeze to a handler.")),
        }
    }

    pub fn value(&mut self, value: &Value, depth: u32) -> IrResult<Held> {
        if depth > MAX_HELD_DEPTH {
            return Err(too_deep());
        }
        self.units += 1;
        match value {
            Value::Bool(b) => return Ok(Held::Bool(*b)),
            Value::Int(i) => return Ok(Held::Int(*i)),
            Value::Float(f) => return Ok(Held::Float(*f)),
            Value::Str(text) => return Ok(Held::Str(text.clone())),
            Value::Case(case) => return Ok(Held::Case(Name::clone(&case.case))),
            Value::Function(function) => return Ok(Held::Function(*function)),
            Value::Seq(_) | Value::Record(_) | Value::Handler(_) => {}
        }
        let shared = value_address(value);
        if let Some(held) = shared.and_then(|at| self.seen.get(&at)) {
            return Ok(held.clone());
        }
        walk_stack_at(depth)?;
        self.units += slots(value) as u64;
        let deeper = depth + 1;
        let held = match value {
            Value::Seq(items) => {
                Held::Seq(items.iter().map(|item| self.value(item, deeper)).collect::<IrResult<Vec<_>>>()?.into())
            }
            Value::Record(record) => Held::Record(Arc::new(HeldRecord {
                type_name: record.type_name.clone(),
                fields: record
                    .fields
                    .iter()
                    .map(|(name, field)| Ok((Name::clone(name), self.value(field, deeper)?)))
                    .collect::<IrResult<_>>()?,
                normal_of: record.normal_of,
            })),
            Value::Handler(handler) => Held::Handler(Arc::new(HeldHandler {
                module: handler.module,
                decl: handler.decl,
                node: handler.node,
                component_key: Name::clone(&handler.component_key),
                emit: Name::clone(&handler.emit),
                action: Name::clone(&handler.action),
                capture: handler
                    .capture
                    .iter()
                    .map(|slot| slot.as_ref().map(|v| self.value(v, deeper)).transpose())
                    .collect::<IrResult<_>>()?,
            })),
            _ => return Err(IrError::new(codes::COMPONENT, "A scalar reached the shared-value path.")),
        };
        if let Some(at) = shared {
            // The value stays alive with the instance being frozen, so its address names it.
            self.seen.insert(at, held.clone());
        }
        Ok(held)
    }
}

/// The work units thawing every value of `roots` may take (`eval::work`): one a value and one a
/// name or slot of each record or handler, an allocation more than one place holds counted once
/// (the thaw makes it once a call). Walked in a loop, not a recursion.
pub(crate) fn held_size<'a>(roots: impl IntoIterator<Item = &'a Held>) -> u64 {
    let mut seen: AddressMap<()> = AddressMap::default();
    let mut pending: Vec<&Held> = roots.into_iter().collect();
    let mut size = 0u64;
    while let Some(held) = pending.pop() {
        size += 1;
        if held_address(held).is_some_and(|at| seen.insert(at, ()).is_some()) {
            continue;
        }
        size += held_slots(held) as u64;
        match held {
            Held::Seq(items) => pending.extend(items.iter()),
            Held::Record(record) => pending.extend(record.fields.iter().map(|(_, field)| field)),
            Held::Handler(handler) => pending.extend(handler.capture.iter().flatten()),
            _ => {}
        }
    }
    size
}

/// Held values → evaluator values for one call, names interned as the call's own; the machine
/// tallies the work (one unit a value asked for, one a name interned).
#[derive(Default)]
pub(crate) struct Thawer {
    seen: AddressMap<Value>,
}

/// The address of an allocation that `holders` places hold, where more than one does: the key
/// of the freezer's and the thawer's maps.
#[inline]
fn shared_at<T: ?Sized>(holders: usize, allocation: *const T) -> Option<usize> {
    (holders > 1).then_some(allocation as *const u8 as usize)
}

/// The allocation of a container value more than one place holds.
fn value_address(value: &Value) -> Option<usize> {
    match value {
        Value::Seq(items) => shared_at(Rc::strong_count(items), Rc::as_ptr(items)),
        Value::Record(record) => shared_at(Rc::strong_count(record), Rc::as_ptr(record)),
        Value::Handler(handler) => shared_at(Rc::strong_count(handler), Rc::as_ptr(handler)),
        _ => None,
    }
}

/// Whether `value` (what checking a restored field made of it) is still `held` (what was read
/// and thawed by `thawer`): a value the thaw made, or the same variant, `$type`, field names in
/// the same order and items, floats bit for bit. A handler is the same only as the very one
/// thawed. Walked in a loop, not a recursion.
pub(crate) fn unchanged(thawer: &Thawer, value: &Value, held: &Held) -> bool {
    let mut pending = vec![(value, held)];
    while let Some((value, held)) = pending.pop() {
        if thawer.thawed(held).and_then(value_address).is_some_and(|at| value_address(value) == Some(at)) {
            continue;
        }
        let same = match (value, held) {
            (Value::Bool(a), Held::Bool(b)) => a == b,
            (Value::Int(a), Held::Int(b)) => a == b,
            (Value::Float(a), Held::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Held::Str(b)) => **a == **b,
            (Value::Case(a), Held::Case(b)) => a.case == *b,
            (Value::Function(a), Held::Function(b)) => a == b,
            (Value::Seq(items), Held::Seq(read)) if items.len() == read.len() => {
                pending.extend(items.iter().zip(read.iter()));
                true
            }
            (Value::Record(record), Held::Record(read))
                if record.type_name == read.type_name
                    && record.fields.len() == read.fields.len()
                    && record.fields.iter().zip(read.fields.iter()).all(|((a, _), (b, _))| a == b) =>
            {
                pending.extend(record.fields.iter().zip(read.fields.iter()).map(|((_, a), (_, b))| (a, b)));
                true
            }
            _ => false,
        };
        if !same {
            return false;
        }
    }
    true
}

/// The names and slots of a record or a handler (a work unit each, besides their values).
fn slots(value: &Value) -> usize {
    match value {
        Value::Record(record) => record.fields.len(),
        Value::Handler(handler) => handler.capture.len(),
        _ => 0,
    }
}

/// As [`slots`], of a held value.
pub(crate) fn held_slots(held: &Held) -> usize {
    match held {
        Held::Record(record) => record.fields.len(),
        Held::Handler(handler) => handler.capture.len(),
        _ => 0,
    }
}

/// The allocation of a container held value more than one place holds.
fn held_address(held: &Held) -> Option<usize> {
    match held {
        Held::Seq(items) => shared_at(Arc::strong_count(items), Arc::as_ptr(items)),
        Held::Record(record) => shared_at(Arc::strong_count(record), Arc::as_ptr(record)),
        Held::Handler(handler) => shared_at(Arc::strong_count(handler), Arc::as_ptr(handler)),
        _ => None,
    }
}

impl Thawer {
    /// What `held` thawed to, where more than one place held it.
    pub fn thawed(&self, held: &Held) -> Option<&Value> {
        held_address(held).and_then(|at| self.seen.get(&at))
    }

    pub fn fields(&mut self, machine: &mut Machine<'_>, fields: &[(Name, Held)]) -> IrResult<Vec<(Name, Value)>> {
        machine.tally(fields.len() as u64);
        fields.iter().map(|(name, held)| Ok((machine.prog_name(name), self.value(machine, held, 0)?))).collect()
    }

    pub fn handler(&mut self, machine: &mut Machine<'_>, handler: &Arc<HeldHandler>) -> IrResult<Rc<Handler>> {
        match self.value(machine, &Held::Handler(Arc::clone(handler)), 0)? {
            Value::Handler(handler) => Ok(handler),
            _ => Err(IrError::new(codes::COMPONENT, "A handler did not thaw to a handler.")),
        }
    }

    pub fn value(&mut self, machine: &mut Machine<'_>, held: &Held, depth: u32) -> IrResult<Value> {
        if depth > MAX_HELD_DEPTH {
            return Err(too_deep());
        }
        machine.tally(1);
        let shared = held_address(held);
        if let Some(value) = shared.and_then(|at| self.seen.get(&at)) {
            return Ok(value.clone());
        }
        if held.is_container() {
            walk_stack_at(depth)?;
            machine.tally(held_slots(held) as u64);
        }
        let deeper = depth + 1;
        let value = match held {
            Held::Bool(b) => return Ok(Value::Bool(*b)),
            Held::Int(i) => return Ok(Value::Int(*i)),
            Held::Float(f) => return Ok(Value::Float(*f)),
            Held::Str(text) => return Ok(Value::Str(text.clone())),
            Held::Case(case) => return Ok(Value::Case(Rc::new(CaseValue { case: machine.prog_name(case) }))),
            Held::Function(function) => return Ok(Value::Function(*function)),
            Held::Seq(items) => {
                Value::seq(items.iter().map(|item| self.value(machine, item, deeper)).collect::<IrResult<Vec<_>>>()?)
            }
            Held::Record(record) => {
                let fields = record
                    .fields
                    .iter()
                    .map(|(name, field)| Ok((machine.prog_name(name), self.value(machine, field, deeper)?)))
                    .collect::<IrResult<Vec<_>>>()?;
                let type_name = record.type_name.as_deref().map(|name| machine.prog_name(name));
                let mut thawed = Record::new(type_name, fields);
                thawed.normal_of = record.normal_of;
                Value::Record(Rc::new(thawed))
            }
            Held::Handler(handler) => Value::Handler(Rc::new(Handler {
                module: handler.module,
                decl: handler.decl,
                node: handler.node,
                component_key: Name::clone(&handler.component_key),
                emit: Name::clone(&handler.emit),
                action: Name::clone(&handler.action),
                capture: handler
                    .capture
                    .iter()
                    .map(|slot| slot.as_ref().map(|h| self.value(machine, h, deeper)).transpose())
                    .collect::<IrResult<_>>()?,
            })),
        };
        if let Some(at) = shared {
            self.seen.insert(at, value.clone());
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value nested `depth` levels, each level a record around a list around the next.
    fn nested(depth: usize) -> Held {
        let mut held = Held::Int(0);
        for _ in 0..depth {
            let list = Held::Seq(Arc::from(vec![held, Held::Int(1)]));
            held = Held::Record(Arc::new(HeldRecord {
                type_name: Some(Name::of_static("Wrap")),
                fields: vec![(Name::of_static("next"), list)].into_boxed_slice(),
                normal_of: None,
            }));
        }
        held
    }

    /// How many records deep `held` nests, walked in a loop.
    fn depth(mut held: &Held) -> usize {
        let mut depth = 0;
        while let Held::Record(record) = held {
            let Held::Seq(items) = &record.fields[0].1 else { break };
            held = &items[0];
            depth += 1;
        }
        depth
    }

    /// Runs `work` on a thread of 64 KiB of stack.
    fn on_a_small_thread<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new().stack_size(64 << 10).spawn(work).expect("a thread").join().expect("no overflow")
    }

    #[test]
    fn a_deep_value_drops_flat_on_a_thread_with_a_small_stack() {
        // 200,000 levels (100,000 records, each around a list) dropped recursively would take
        // megabytes of stack; the thread has 64 KiB.
        on_a_small_thread(|| drop_flat(vec![nested(100_000)]));
    }

    #[test]
    fn a_level_another_holder_keeps_outlives_the_value_it_was_taken_from() {
        let (count, kept_depth) = on_a_small_thread(|| {
            let held = nested(100_000);
            let Held::Record(record) = &held else { unreachable!() };
            let Held::Seq(items) = &record.fields[0].1 else { unreachable!() };
            let kept = items[0].clone();
            drop_flat(vec![held]);
            let Held::Record(kept_record) = &kept else { unreachable!() };
            let found = (Arc::strong_count(kept_record), depth(&kept));
            drop_flat(vec![kept]);
            found
        });
        assert_eq!((count, kept_depth), (1, 99_999));
    }
}
