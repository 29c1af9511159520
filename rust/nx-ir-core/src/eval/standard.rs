//! Schema 6 standard operations in evaluation: `standardMath` (node kind 26) and `standardColor`
//! (node kind 27) over the pure functions of [`super::stdlib`].
//!
//! Each costs the one operation of its node (its arguments pay for themselves). Arguments are
//! evaluated in order. A math argument must be an int (read as its float64) or a float, checked
//! as it is evaluated (`nx-math-domain` "expected float64" before the next one is). A colour
//! argument is written as the host would see it, at no charge, and the result read back as the
//! host would hand it in (a record's fields in byte order of their names). A refusal names the
//! node's declaration and span.


use crate::error::IrResult;

use super::cost::{limit_error, MAX_VALUE_NESTING};
use super::host::{HostRecord, HostValue};
use super::machine::{Cx, Frame, Machine};
use super::stdlib::{evaluate_color, evaluate_math, math_argument_error, MathOp};
use super::value::{Name, Record, Text, Value};

impl Machine<'_> {
    /// `math.<op>(args)`: a float64.
    #[inline(never)]
    pub(crate) fn eval_math(&mut self, cx: Cx, frame: &mut Frame, node: u32, op: MathOp, args: &[u32]) -> IrResult<Value> {
        // At most three arguments (the compiled node has the operation's own count).
        let mut xs = [0.0f64; 3];
        for (x, arg) in xs.iter_mut().zip(args) {
            *x = match self.eval(cx, frame, *arg)? {
                Value::Float(f) => f,
                Value::Int(i) => i as f64,
                _ => {
                    let refused = math_argument_error();
                    return self.fail(cx, node, refused.code, refused.message);
                }
            };
        }
        match evaluate_math(op, &xs[..args.len().min(3)]) {
            Ok(x) => Ok(Value::Float(x)),
            Err(refused) => self.fail(cx, node, refused.code, refused.message),
        }
    }

    /// `color.<op>(args)`: whatever the operation gives, read back as a host value.
    #[inline(never)]
    pub(crate) fn eval_color(&mut self, cx: Cx, frame: &mut Frame, node: u32, op: u32, args: &[u32]) -> IrResult<Value> {
        let mut written = Vec::with_capacity(args.len());
        for arg in args {
            let value = self.eval(cx, frame, *arg)?;
            written.push(self.host_copy(&value, 0)?);
            value.dispose();
        }
        match evaluate_color(op, &written) {
            Ok(result) => Ok(self.read_std_result(result)),
            Err(refused) => self.fail(cx, node, refused.code, refused.message),
        }
    }

    /// `value` as a host would receive it (see [`Machine::write`]), charging nothing: records'
    /// fields in byte order of their names, an update record's empty fields `null`, a function
    /// or handler as its record. A walk past the value nesting limit or the stack budget fails.
    fn host_copy(&mut self, value: &Value, depth: u32) -> IrResult<HostValue> {
        if depth > MAX_VALUE_NESTING {
            return Err(limit_error(
                "maxValueNesting",
                u64::from(MAX_VALUE_NESTING),
                format!("A value nests more than {MAX_VALUE_NESTING} levels deep."),
            ));
        }
        if matches!(value, Value::Seq(_) | Value::Record(_)) && !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        self.tally(1);
        Ok(match value {
            Value::Bool(b) => HostValue::Bool(*b),
            Value::Int(i) => HostValue::Int(*i),
            Value::Float(x) => HostValue::Float(*x),
            Value::Str(text) => HostValue::Str(text.to_string()),
            Value::Case(case) => HostValue::Str(case.case.to_string()),
            Value::Seq(items) => {
                HostValue::List(items.iter().map(|item| self.host_copy(item, depth + 1)).collect::<IrResult<_>>()?)
            }
            Value::Function(function) => {
                let module = &self.prog.modules[function.module as usize];
                let name = &module.decls[function.decl as usize].name;
                HostValue::Record(
                    HostRecord::new(Some("Function"))
                        .with("module", HostValue::str(&*module.identity))
                        .with("name", HostValue::str(&**name)),
                )
            }
            Value::Handler(handler) => {
                HostValue::Record(HostRecord::new(Some("ActionHandler")).with("action", HostValue::str(&*handler.action)))
            }
            Value::Record(record) => {
                let update = record.type_name().is_some_and(|name| name.ends_with(".Update"));
                let mut order: Vec<&(Name, Value)> = record.fields.iter().collect();
                order.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                let mut fields = Vec::with_capacity(order.len());
                for (name, field) in order {
                    let written = match self.host_copy(field, depth + 1)? {
                        HostValue::List(items) if update && items.is_empty() => HostValue::Null,
                        other => other,
                    };
                    fields.push((name.to_string(), written));
                }
                HostValue::Record(HostRecord { type_name: record.type_name().map(str::to_string), fields })
            }
        })
    }

    /// A standard operation's result as a runtime value: `null` the empty value, a record's
    /// fields in byte order of their names. (Its results nest three levels at most.)
    fn read_std_result(&mut self, value: HostValue) -> Value {
        self.tally(1);
        match value {
            HostValue::Null => Value::empty(),
            HostValue::Bool(b) => Value::Bool(b),
            HostValue::Int(i) => Value::Int(i),
            HostValue::Float(x) => Value::Float(x),
            HostValue::Str(text) => Value::Str(Text::new(&text)),
            HostValue::List(items) => Value::seq(items.into_iter().map(|item| self.read_std_result(item)).collect()),
            HostValue::Record(record) => {
                let mut fields: Vec<(Name, Value)> = Vec::with_capacity(record.fields.len());
                for (name, field) in record.fields {
                    let value = self.read_std_result(field);
                    fields.push((self.prog_name(&name), value));
                }
                fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                let type_name = record.type_name.map(|name| self.prog_name(&name));
                Value::Record(Record::new_rc(type_name, fields))
            }
        }
    }
}
