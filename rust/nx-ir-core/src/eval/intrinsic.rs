//! Update intrinsics (ir-format §4.11): apply, merge, diff (whose comparisons are charged to the
//! intrinsic node) and changed. Their results are not type-checked.

use std::rc::Rc;
use std::sync::Arc;

use crate::error::{codes, IrError, IrResult};

use super::compiled::Intrinsic;
use super::machine::{Cx, Frame, Machine};
use super::value::{set_field, Name, Record, Text, Value};

impl Machine<'_> {
    pub(crate) fn eval_intrinsic(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        op: Intrinsic,
        args: &[u32],
        order: &[Name],
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
        // Intrinsic copying is free under the charges (ir-format §6.1); the work counter sees it.
        let sizes: Vec<u64> = records.iter().map(|r| r.fields.len() as u64 + 1).collect();
        self.tally(sizes.iter().product::<u64>() + sizes.iter().sum::<u64>());
                let type_of = |r: &Rc<Record>| r.type_name.clone().unwrap_or_else(|| Arc::from(""));
        match op {
            Intrinsic::Apply => {
                let (record, update) = (&records[0], &records[1]);
                let expected = format!("{}.Update", type_of(record));
                if *type_of(update) != *expected {
                    return Err(IrError::new(
                        codes::INTRINSIC,
                        format!("Intrinsic 'apply' expects a {expected}, got {} for {}.", type_of(update), type_of(record)),
                    ));
                }
                let mut fields = record.fields.clone();
                for (key, value) in &update.fields {
                    if value.is_empty() {
                        fields.retain(|(k, _)| k != key);
                    } else {
                        set_field(&mut fields, Arc::clone(key), value.clone());
                    }
                }
                Ok(Value::Record(Rc::new(Record::new(record.type_name.clone(), fields))))
            }
            Intrinsic::Merge => {
                let (a, b) = (&records[0], &records[1]);
                if type_of(a) != type_of(b) {
                    return Err(IrError::new(codes::INTRINSIC, format!("Intrinsic 'merge' expects two {}, got {}.", type_of(a), type_of(b))));
                }
                let mut fields = a.fields.clone();
                for (key, value) in &b.fields {
                    set_field(&mut fields, Arc::clone(key), value.clone());
                }
                Ok(Value::Record(Rc::new(Record::new(a.type_name.clone(), fields))))
            }
            Intrinsic::Diff => {
                let (before, after) = (&records[0], &records[1]);
                if type_of(before) != type_of(after) {
                    return Err(IrError::new(codes::INTRINSIC, format!("Intrinsic 'diff' expects two {}, got {}.", type_of(before), type_of(after))));
                }
                let mut names: Vec<Name> = before.fields.iter().map(|(k, _)| Arc::clone(k)).collect();
                for (k, _) in &after.fields {
                    if before.get_name(k).is_none() {
                        names.push(Arc::clone(k));
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
                let type_name = self.prog_name(&format!("{}.Update", type_of(before)));
                Ok(Value::Record(Rc::new(Record::new(Some(type_name), fields))))
            }
            Intrinsic::Changed => {
                let update = &records[0];
                let declared: Vec<Name> = if !order.is_empty() {
                    order.to_vec()
                } else {
                    let type_name = type_of(update);
                    let shapes = self.prog.shapes.get(&type_name).map(|s| s.as_slice()).unwrap_or(&[]);
                    match shapes {
                        [shape] => {
                            let (fields, _) = self.shape_fields(shape.module, shape.decl, shape.case);
                            fields.iter().map(|f| Arc::clone(&f.name)).collect()
                        }
                        _ => {
                            return Err(IrError::new(
                                codes::INTRINSIC,
                                format!("Intrinsic 'changed' cannot find one declaration named '{type_name}'."),
                            ))
                        }
                    }
                };
                let mut out = Vec::with_capacity(update.fields.len());
                for name in &declared {
                    if update.get_name(name).is_some() {
                        out.push(Value::Str(Text::new(name)));
                    }
                }
                for (k, _) in &update.fields {
                    if !declared.iter().any(|d| d == k) {
                        out.push(Value::Str(Text::new(k)));
                    }
                }
                Ok(Value::seq(out))
            }
        }
    }
}
