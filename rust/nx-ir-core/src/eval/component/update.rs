//! The update helpers a host calls on values it holds, as the update intrinsics (ir-format §4.11)
//! compute them, with no budget: `apply`, `merge`, `diff` (structural comparison, records and
//! lists alike) and `changed` (which needs the program for the declared field order).
//!
//! A host `null` is the empty value, so `null` and `[]` both clear a field of an update record;
//! a cleared field of a result whose type ends in `.Update` is written `null`.

use std::rc::Rc;
use std::sync::OnceLock;

use crate::error::{codes, IrError, IrResult};

use super::super::compiled::CompiledProgram;
use super::super::cost::Limits;
use super::super::host::{HostValue, HostValueBuilder};
use super::super::machine::{Cx, Machine};
use super::super::source::ModelProgram;
use super::super::field_set::{applied, merged};
use super::super::value::{Name, Record, Value};

/// The program the helpers that need none run on: the built-in prelude alone.
fn bare() -> IrResult<&'static CompiledProgram> {
    static BARE: OnceLock<Result<CompiledProgram, IrError>> = OnceLock::new();
    BARE.get_or_init(|| {
        let prelude = crate::prelude::prelude_model(crate::model::kinds::SCHEMA_5)?;
        CompiledProgram::compile(&ModelProgram::link(vec![prelude])?)
    })
    .as_ref()
    .map_err(Clone::clone)
}

const CX: Cx = Cx { module: 0, decl: 0, depth: 0 };

/// Runs `body` on a machine over `program` with no budget, reading `inputs` first.
fn with_values<const N: usize>(
    program: &CompiledProgram,
    inputs: [&HostValue; N],
    body: impl FnOnce(&mut Machine<'_>, [Value; N]) -> IrResult<Value>,
) -> IrResult<HostValue> {
    let limits = Limits::default();
    let mut machine = Machine::new(program, &limits);
    let mut values = Vec::with_capacity(N);
    for input in inputs {
        values.push(machine.read_host(&input, 0)?);
    }
    let values: [Value; N] = values.try_into().map_err(|_| IrError::new(codes::INTRINSIC, "Wrong number of values."))?;
    let result = body(&mut machine, values)?;
    machine.write(CX, &result, &mut HostValueBuilder)
}

fn record<'v>(value: &'v Value, helper: &str) -> IrResult<&'v Rc<Record>> {
    match value {
        Value::Record(record) if record.type_name.is_some() => Ok(record),
        other => Err(IrError::new(
            codes::INTRINSIC,
            format!("Intrinsic '{helper}' expects a record value, got {}.", other.describe()),
        )),
    }
}

/// The record's type name (records reaching the helpers have one).
fn name_of(record: &Record) -> Name {
    record.type_name.clone().unwrap_or_else(|| Name::of_static(""))
}

fn type_of(record: &Record) -> &str {
    record.type_name().unwrap_or("")
}

/// `apply(record, update)`: the record with each field the update holds replaced, and each it
/// clears left out. The update must be the record's `<Type>.Update`.
pub fn apply(target: &HostValue, update: &HostValue) -> IrResult<HostValue> {
    with_values(bare()?, [target, update], |machine, [target, update]| {
        let (target, update) = (record(&target, "apply")?, record(&update, "apply")?);
        let (target_type, update_type) = (name_of(target), name_of(update));
        if !machine.is_update_of(&update_type, &target_type) {
            let expected = format!("{}.Update", type_of(target));
            return Err(IrError::new(
                codes::INTRINSIC,
                format!("Cannot apply '{}' to a '{}': only '{expected}' patches it.", type_of(update), type_of(target)),
            ));
        }
        Ok(Value::Record(Rc::new(Record::with_fields(target.type_name.clone(), applied(target, update).fields))))
    })
}

/// `merge(first, second)`: every field either update holds, the second's winning, cleared
/// fields included. Both must be of one type.
pub fn merge(first: &HostValue, second: &HostValue) -> IrResult<HostValue> {
    with_values(bare()?, [first, second], |machine, [first, second]| {
        let (first, second) = (record(&first, "merge")?, record(&second, "merge")?);
        if !machine.same_name(&name_of(first), &name_of(second)) {
            return Err(IrError::new(
                codes::INTRINSIC,
                format!("Cannot merge '{}' with '{}': the updates target different records.", type_of(first), type_of(second)),
            ));
        }
        Ok(Value::Record(Rc::new(Record::with_fields(first.type_name.clone(), merged(first, second).fields))))
    })
}

/// `diff(before, after)`: the `<Type>.Update` holding each field whose values differ, with
/// `after`'s value (a field `after` leaves out is cleared: `null`).
pub fn diff(before: &HostValue, after: &HostValue) -> IrResult<HostValue> {
    with_values(bare()?, [before, after], |machine, [before, after]| {
        let (before, after) = (record(&before, "diff")?, record(&after, "diff")?);
        if !machine.same_name(&name_of(before), &name_of(after)) {
            return Err(IrError::new(
                codes::INTRINSIC,
                format!("Cannot diff '{}' against '{}': the records have different types.", type_of(before), type_of(after)),
            ));
        }
        let names: Vec<Name> = before
            .fields
            .iter()
            .map(|(name, _)| Name::clone(name))
            .chain(after.fields.iter().map(|(name, _)| Name::clone(name)).filter(|name| before.get(name).is_none()))
            .collect();
        let empty = Value::empty();
        let mut fields = Vec::new();
        for name in names {
            let next = after.get(&name).unwrap_or(&empty).clone();
            if !machine.equal(CX, None, before.get(&name).unwrap_or(&empty), &next)? {
                fields.push((name, next));
            }
        }
        let type_name = machine.update_name(&name_of(before));
        Ok(Value::Record(Record::new_rc(Some(type_name), fields)))
    })
}

/// `changed(update)`: the names of the fields the update holds (cleared ones included), in the
/// order the program's one declaration of its type lists them; names it does not list last.
pub fn changed(program: &CompiledProgram, update: &HostValue) -> IrResult<Vec<String>> {
    let limits = Limits::default();
    let mut machine = Machine::new(program, &limits);
    let value = machine.read_host(&update, 0)?;
    let update = record(&value, "changed")?;
    let type_name = name_of(update);
    let [shape] = program.shapes_of(&type_name) else {
        return Err(IrError::new(
            codes::INTRINSIC,
            format!("Cannot order the fields of '{}': the program does not declare it.", type_of(update)),
        ));
    };
    // Each field's declared position by a binary search; undeclared ones last, in their order.
    let mut placed: Vec<(usize, usize)> = update
        .fields
        .iter()
        .enumerate()
        .map(|(at, (name, _))| (machine.declared_position(*shape, name).unwrap_or(usize::MAX), at))
        .collect();
    placed.sort_unstable();
    let fields = update.fields.as_slice();
    Ok(placed.into_iter().map(|(_, at)| fields[at].0.to_string()).collect())
}
