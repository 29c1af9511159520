//! Schema 6 constraints in evaluation: a value at a constrained site (`nx-ir-boundary-constraint`),
//! `check` nodes (`nx-ir-constraint`) and interval patterns of `ifIs`. The intervals are compiled
//! with their types ([`super::interval`]); nothing here runs for a schema 5 program.
//!
//! Costs, as the reference runtime charges them: a constrained site costs the one operation of
//! any typed check; a `check` node costs 1 for itself and 1 per item it checks (a sequence item
//! by item, the empty value nothing), charged at the node as each item is reached; an interval
//! pattern costs 2, as a literal pattern does (the pattern and its comparison).

use crate::error::{codes, IrError, IrResult};

use super::interval::Interval;
use super::machine::{Cx, Frame, Machine};
use super::normalize::Path;
use super::value::{Name, Value};

/// The number `value` is when it is one: ints compare as their `f64`.
#[inline]
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

fn not_constrained<T>(machine: &Machine<'_>, cx: Cx, node: u32) -> IrResult<T> {
    machine.fail(cx, node, codes::MALFORMED, "NX IR image is malformed: a constraint node names a type that is not constrained.")
}

impl Machine<'_> {
    /// A value already read at a constrained site's base, kept when it lies in the interval.
    pub(crate) fn within_interval(&self, interval: &Interval, value: Value, path: &Path<'_>) -> IrResult<Value> {
        if number(&value).is_some_and(|x| interval.holds(x)) {
            return Ok(value);
        }
        // The base is numeric, so its reading is an int or a float.
        let shown = match &value {
            Value::Int(i) => i.to_string(),
            Value::Float(x) => interval.float_text(*x),
            _ => String::new(),
        };
        Err(IrError::new(codes::BOUNDARY_CONSTRAINT, format!("Expected {path} to be in {interval}, got {shown}.")))
    }

    /// `check`: the operand's value, once every item of it lies in the interval.
    #[inline(never)]
    pub(crate) fn eval_check(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        node: u32,
        operand: u32,
        interval: Option<&Interval>,
        site: &Name,
    ) -> IrResult<Value> {
        let value = self.eval(cx, frame, operand)?;
        let Some(interval) = interval else { return not_constrained(self, cx, node) };
        match &value {
            Value::Seq(items) => {
                for item in items.iter() {
                    self.check_item(cx, node, interval, site, item)?;
                }
            }
            single => self.check_item(cx, node, interval, site, single)?,
        }
        Ok(value)
    }

    #[inline]
    fn check_item(&mut self, cx: Cx, node: u32, interval: &Interval, site: &Name, item: &Value) -> IrResult<()> {
        self.charge(cx, Some(node), 1)?;
        self.tally(1);
        if number(item).is_some_and(|x| interval.holds(x)) {
            return Ok(());
        }
        let shown = match item {
            Value::Int(i) => i.to_string(),
            Value::Float(x) => interval.float_text(*x),
            _ => "that is not a number".to_string(),
        };
        self.fail(cx, node, codes::CONSTRAINT, format!("The value {shown} for '{site}' is outside its constraint {interval}."))
    }

    /// An interval pattern of an `ifIs` arm against the scrutinee: a one-item sequence is its
    /// item; the empty value, any other sequence, a non-number and NaN never match.
    pub(crate) fn interval_pattern(
        &mut self,
        cx: Cx,
        node: u32,
        interval: Option<&Interval>,
        scrutinee: &Value,
    ) -> IrResult<bool> {
        self.charge(cx, Some(node), 2)?;
        self.tally(1);
        let Some(interval) = interval else { return not_constrained(self, cx, node) };
        let item = match scrutinee {
            Value::Seq(items) if items.len() == 1 => &items[0],
            other => other,
        };
        Ok(number(item).is_some_and(|x| interval.holds(x)))
    }
}
