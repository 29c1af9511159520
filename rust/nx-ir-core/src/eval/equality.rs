//! Structural equality with its charges (ir-format §4.5). Under a budget every pair visited
//! costs 1 before it is examined, texts and names cost ⌊len16/64⌋, and records compare every
//! field even after a difference; with no budget the walk stops early (same result).

use crate::error::IrResult;

use super::machine::{Cx, Machine};
use super::value::{min_len16, text_cost, Name, Value};

impl Machine<'_> {
    /// Compares two values, charging to `cx` / `node`.
    pub fn equal(&mut self, cx: Cx, node: Option<u32>, a: &Value, b: &Value) -> IrResult<bool> {
        self.charge(cx, node, 1)?;
        if !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        self.tally(1);
        match (a, b) {
            (Value::Seq(x), Value::Seq(y)) => {
                if x.len() != y.len() {
                    return Ok(false);
                }
                for (p, q) in x.iter().zip(y.iter()) {
                    if !self.equal(cx, node, p, q)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            (Value::Seq(x), other) | (other, Value::Seq(x)) => {
                if x.len() == 1 {
                    let (p, q) = if matches!(a, Value::Seq(_)) { (&x[0], other) } else { (other, &x[0]) };
                    self.equal(cx, node, p, q)
                } else {
                    Ok(false)
                }
            }
            (Value::Bool(x), Value::Bool(y)) => Ok(x == y),
            (Value::Int(x), Value::Int(y)) => Ok(x == y),
            (Value::Float(x), Value::Float(y)) => Ok(x == y),
            (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => Ok(*x as f64 == *y),
            (Value::Str(_) | Value::Case(_), Value::Str(_) | Value::Case(_)) => {
                let (x, y) = (a.as_text().unwrap_or(""), b.as_text().unwrap_or(""));
                if self.budgeted && x.len() >= 64 && y.len() >= 64 {
                    // The charge needs the smaller UTF-16 length only: measured without
                    // walking the longer text past it.
                    let (units, read) = match (a, b) {
                        // Two ASCII strings: what the walk would find (the shorter's bytes,
                        // and as many of the longer's), without the walk.
                        (Value::Str(p), Value::Str(q)) if p.is_ascii() && q.is_ascii() => {
                            let shorter = x.len().min(y.len()) as u64;
                            (shorter, 2 * shorter)
                        }
                        _ => min_len16(x, y),
                    };
                    self.tally(read / 64);
                    self.charge(cx, node, units / 64)?;
                }
                // Texts of different lengths differ at once; equal lengths compare both.
                self.tally(if x.len() == y.len() { x.len() as u64 / 64 } else { 0 });
                Ok(x == y)
            }
            (Value::Function(x), Value::Function(y)) => Ok(x == y),
            (Value::Handler(x), Value::Handler(y)) => {
                if x.module != y.module || x.decl != y.decl || x.node != y.node || x.capture.len() != y.capture.len() {
                    return Ok(false);
                }
                for (p, q) in x.capture.iter().zip(y.capture.iter()) {
                    let same = match (p, q) {
                        (None, None) => true,
                        (Some(p), Some(q)) => self.equal(cx, node, p, q)?,
                        _ => false,
                    };
                    if !same {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            (Value::Record(x), Value::Record(y)) => {
                match (&x.type_name, &y.type_name) {
                    (Some(p), Some(q)) => {
                        if self.budgeted && p.len() >= 64 && q.len() >= 64 {
                            let (units, read) = min_len16(p, q);
                            self.tally(read / 64);
                            self.charge(cx, node, units / 64)?;
                        }
                        // Interned names: one text is one address.
                        if Name::ptr_eq(p, q) {
                        } else if p.len() != q.len() || {
                            self.tally(p.len() as u64 / 64);
                            **p != **q
                        } {
                            return Ok(false);
                        }
                    }
                    (None, None) => {}
                    _ => return Ok(false),
                }
                self.tally(x.fields.len() as u64 * y.lookup_work() + y.fields.len() as u64 * x.lookup_work());
                let mut equal = true;
                if !self.budgeted {
                    if x.fields.len() != y.fields.len() {
                        return Ok(false);
                    }
                    for (name, value) in &x.fields {
                        match y.get_name(name) {
                            Some(other) => {
                                if !self.equal(cx, node, value, other)? {
                                    return Ok(false);
                                }
                            }
                            None => return Ok(false),
                        }
                    }
                    return Ok(true);
                }
                // As the reference pays: every name each record holds, before any value; then
                // the fields of `x` in order (a pair where both hold the name, one operation
                // where only `x` does); then the fields only `y` holds, in one charge (so a
                // budget that runs out there fails at the same count).
                for (name, _) in x.fields.iter().chain(y.fields.iter()) {
                    self.charge(cx, node, text_cost(name))?;
                }
                for (name, value) in &x.fields {
                    match y.get_name(name) {
                        Some(other) => {
                            if !self.equal(cx, node, value, other)? {
                                equal = false;
                            }
                        }
                        None => {
                            self.charge(cx, node, 1)?;
                            equal = false;
                        }
                    }
                }
                let only_y = y.fields.iter().filter(|(name, _)| x.get_name(name).is_none()).count() as u64;
                self.charge(cx, node, only_y)?;
                Ok(equal && only_y == 0)
            }
            _ => Ok(false),
        }
    }
}
