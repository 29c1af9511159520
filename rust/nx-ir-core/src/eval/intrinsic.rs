//! Update intrinsics (ir-format §4.11): apply, merge, diff (whose comparisons are charged to the
//! intrinsic node) and changed. Their results are not type-checked.

use std::rc::Rc;

use crate::error::{codes, IrError, IrResult};

use super::compiled::Intrinsic;
use super::machine::{Cx, Frame, Machine, FIELD_BYTES};
use super::compiled::name_key;
use super::field_set::{applied, merged};
use super::value::{Fields, Name, Record, Text, Value, Wide};
use super::wide::Step;

impl Machine<'_> {
    #[inline(never)]
    pub(crate) fn eval_intrinsic(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        op: Intrinsic,
        args: &[u32],
        order_at: &[(usize, u32)],
    ) -> IrResult<Value> {
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(self.eval(cx, frame, *arg)?);
        }
        let name = match op {
            Intrinsic::Apply => "apply",
            Intrinsic::Merge => "merge",
            Intrinsic::Diff => "diff",
            Intrinsic::Changed => "changed",
        };
        let arity = if op == Intrinsic::Changed { 1 } else { 2 };
        if values.len() != arity {
            return self.fail(cx, index, codes::INTRINSIC, format!("Intrinsic '{name}' expects {arity} argument(s), got {}.", values.len()));
        }
        // Each argument must be a record with a type name. This failure, and those of the
        // arguments' types below, name no declaration (as in the reference runtime); only the
        // arity, a fault of the image's node, does.
        let mut records = Vec::with_capacity(2);
        for value in &values {
            match value {
                Value::Record(record) if record.type_name.is_some() => records.push(Rc::clone(record)),
                other => {
                    return Err(IrError::new(codes::INTRINSIC, format!("Intrinsic '{name}' expects a record value, got {}.", other.describe())))
                }
            }
        }
        // Intrinsic copying is free under the charges (ir-format §6.1): the work counter sees
        // it (a field copied or set is one unit), the memory ceiling bounds it. A wide record's
        // copy shares all but the paths the update changes (`field_set`, `wide`), so what is
        // left free is the update's own fields (and a flat record, of at most 64 fields).
        let type_of = |r: &Rc<Record>| r.type_name.clone().unwrap_or_else(|| Name::of_static(""));
        match op {
            Intrinsic::Apply => {
                let (record, update) = (&records[0], &records[1]);
                if !self.is_update_of(&type_of(update), &type_of(record)) {
                    let expected = format!("{}.Update", type_of(record));
                    return Err(IrError::new(
                        codes::INTRINSIC,
                        format!("Intrinsic 'apply' expects a {expected}, got {} for {}.", type_of(update), type_of(record)),
                    ));
                }
                let made = applied(record, update);
                self.copied(cx, index, made.copied, made.bytes)?;
                Ok(Value::Record(Rc::new(Record::with_fields(record.type_name.clone(), made.fields))))
            }
            Intrinsic::Merge => {
                let (a, b) = (&records[0], &records[1]);
                if !self.same_name(&type_of(a), &type_of(b)) {
                    return Err(IrError::new(codes::INTRINSIC, format!("Intrinsic 'merge' expects two {}, got {}.", type_of(a), type_of(b))));
                }
                let made = merged(a, b);
                self.copied(cx, index, made.copied, made.bytes)?;
                Ok(Value::Record(Rc::new(Record::with_fields(a.type_name.clone(), made.fields))))
            }
            Intrinsic::Diff => {
                let (before, after) = (&records[0], &records[1]);
                if !self.same_name(&type_of(before), &type_of(after)) {
                    return Err(IrError::new(codes::INTRINSIC, format!("Intrinsic 'diff' expects two {}, got {}.", type_of(before), type_of(after))));
                }
                if let (Fields::Wide(b), Fields::Wide(a)) = (&before.fields, &after.fields) {
                    return self.diff_wide(cx, index, &type_of(before), b, a);
                }
                self.tally((before.lookup_work() + 1) * (after.fields.len() as u64 + 1) + (after.lookup_work() + 1) * (before.fields.len() as u64 + 1));
                // The names listed: each is compared below, one charge at least, so this copy
                // is paid for (not a free copy).
                let listed = before.fields.len() + after.fields.len();
                self.tally(listed as u64 + 1);
                self.allocate(cx, Some(index), FIELD_BYTES * (listed as u64 + 1))?;
                let mut names: Vec<Name> = before.fields.iter().map(|(k, _)| Name::clone(k)).collect();
                for (k, _) in &after.fields {
                    if before.get_name(k).is_none() {
                        names.push(Name::clone(k));
                    }
                }
                let empty = Value::empty();
                let mut fields = Vec::new();
                for name in names {
                    let b = before.get_name(&name).unwrap_or(&empty).clone();
                    let a = after.get_name(&name).unwrap_or(&empty).clone();
                    if !self.equal(cx, Some(index), &b, &a)? {
                        fields.push((name, a));
                    }
                }
                let type_name = self.update_name(&type_of(before));
                Ok(Value::Record(Record::new_rc(Some(type_name), fields)))
            }
            Intrinsic::Changed => {
                let update = &records[0];
                let type_name = type_of(update);
                // Each field's place in the declared order: from the node's order list (sorted
                // by name address at compile time) or the one declaration of the type, found by
                // a binary search either way, so the work follows the update's size.
                let shape = if order_at.is_empty() {
                    match self.prog.shapes_of(&type_name) {
                        [shape] => Some(*shape),
                        _ => {
                            return Err(IrError::new(
                                codes::INTRINSIC,
                                format!("Intrinsic 'changed' cannot find one declaration named '{type_name}'."),
                            ))
                        }
                    }
                } else {
                    None
                };
                let unplaced = usize::MAX;
                let mut placed: Vec<(usize, usize)> = Vec::with_capacity(update.fields.len());
                for (at, (name, _)) in update.fields.iter().enumerate() {
                    let position = match shape {
                        Some(shape) => self.declared_position(shape, name),
                        None => {
                            self.tally(u64::from(usize::BITS - order_at.len().leading_zeros()));
                            order_at
                                .binary_search_by_key(&name_key(name), |(key, _)| *key)
                                .ok()
                                .map(|found| order_at[found].1 as usize)
                        }
                    };
                    placed.push((position.unwrap_or(unplaced), at));
                }
                // Declared ones in their declared order, the rest after them as the update holds them.
                placed.sort_unstable();
                self.tally(placed.len() as u64 * u64::from(usize::BITS - placed.len().leading_zeros()));
                // The list of names is free under the charges, as the intrinsics' copies are.
                self.copied(cx, index, placed.len(), FIELD_BYTES * placed.len() as u64)?;
                let fields = update.fields.as_slice();
                let mut out = Vec::with_capacity(placed.len());
                for (_, at) in placed {
                    let name = &fields[at].0;
                    self.tally(1 + name.len() as u64 / 64);
                    self.allocate(cx, Some(index), 16 + name.len() as u64)?;
                    out.push(Value::Str(Text::new(name)));
                }
                Ok(Value::seq(out))
            }
        }
    }
}

impl Machine<'_> {
    /// `diff` of two wide records: what the flat `diff` does (each of `before`'s fields compared
    /// with `after`'s, in `before`'s order, then each field only `after` holds, a charge per
    /// comparison at the intrinsic's node), with the subtrees both records share (a copy's
    /// unchanged part) charged without a visit when each of their values is plain (equal to
    /// itself at one charge). `diff(r, apply(r, u))` visits u's paths only.
    fn diff_wide(&mut self, cx: Cx, index: u32, type_name: &Name, before: &Wide, after: &Wide) -> IrResult<Value> {
        let empty = Value::empty();
        let mut fields: Vec<(Name, Value)> = Vec::new();
        before.walk(after, &mut |step| match step {
            Step::SamePlain(count) => self.equal_plain(cx, index, count),
            Step::Same((name, value)) => {
                if !self.equal(cx, Some(index), value, value)? {
                    fields.push((Name::clone(name), value.clone()));
                }
                Ok(())
            }
            Step::Field((name, value)) => {
                let other = after.get(name).unwrap_or(&empty).clone();
                if !self.equal(cx, Some(index), value, &other)? {
                    fields.push((Name::clone(name), other));
                }
                Ok(())
            }
        })?;
        after.walk(before, &mut |step| match step {
            // A field both hold at the same place: compared above.
            Step::SamePlain(_) | Step::Same(_) => Ok(()),
            Step::Field((name, value)) => {
                if before.get(name).is_none() && !self.equal(cx, Some(index), &empty, value)? {
                    fields.push((Name::clone(name), value.clone()));
                }
                Ok(())
            }
        })?;
        self.tally(fields.len() as u64 + 1);
        self.allocate(cx, Some(index), FIELD_BYTES * (fields.len() as u64 + 1))?;
        let type_name = self.update_name(type_name);
        Ok(Value::Record(Record::new_rc(Some(type_name), fields)))
    }

    /// `count` comparisons of plain values with themselves, as `equal` makes them: a charge
    /// each at `node` (one at a time where the budget or a hook needs it), a unit of work each.
    fn equal_plain(&mut self, cx: Cx, node: u32, count: u64) -> IrResult<()> {
        if count == 0 {
            return Ok(());
        }
        self.charge(cx, Some(node), 1)?;
        if !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        self.tally(1);
        let rest = count - 1;
        if rest <= self.fast_room() {
            self.take_fast(rest);
            return Ok(());
        }
        for _ in 0..rest {
            self.charge(cx, Some(node), 1)?;
            self.tally(1);
        }
        Ok(())
    }
}
