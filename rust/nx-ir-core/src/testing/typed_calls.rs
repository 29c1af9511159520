//! Host values shaped after a program's declared types, for the fuzz targets' structured
//! mutation ([`super::fuzz::mutate_evaluate_case`]): libFuzzer's own mutations rarely spell a
//! record whose members a parameter's record declares, so without these the host reader's typed
//! paths (records read in their declared layout, subtypes by `$type`, union cases, large lists of
//! records) would be reached mostly by the seeds.
//!
//! [`TypedValues`] makes a value for a type of a linked program: a record with its declared
//! fields (an optional one left out at times, a `$type` at times, a subtype of an abstract
//! record), a union's constant case by name or a case record, a list of any length up to
//! thousands (one item repeated), numbers at their types' edges and at a constrained type's
//! ends. One value in [`BEND_ONE_IN`] is bent (any value in its place, a required member left
//! out, an unknown one added, members out of order), so that refusals deep inside a large value
//! are reached too. [`encode_value`] writes a value in the fuzz input's value format, which
//! [`super::fuzz::ValueDecoder`] reads back exactly.

use super::fuzz::{Rng, MAX_VALUES};
use crate::eval::{HostRecord, HostValue};
use crate::link::Program;
use crate::model::{kinds, Constant, Decl, Field, Ref, Type};

/// One value in this many is bent.
pub const BEND_ONE_IN: usize = 16;
/// Types nest at most this deep in one value (a record holding itself ends in null).
pub const MAX_TYPE_DEPTH: u32 = 12;
/// What the values of one call weigh at most (as [`MAX_VALUES`] weighs them), with room left
/// for the call's function value.
pub const CALL_WEIGHT: usize = MAX_VALUES / 2;

/// A record declaration of the program and the (module, name) of each of its bases.
struct RecordDecl {
    module: usize,
    name: String,
    fields: Vec<Field>,
    is_abstract: bool,
    bases: Vec<(usize, String)>,
}

/// Makes host values for the declared types of one linked program.
pub struct TypedValues<'p> {
    program: &'p Program,
    /// Every record of the program (subtypes are found here).
    records: Vec<RecordDecl>,
    /// Every function of the program, as (module identity, name).
    functions: Vec<(String, String)>,
    /// What the values made so far weigh.
    made: usize,
}

/// The (module index, name) a reference from `module` resolves to.
fn resolve(program: &Program, module: usize, reference: Ref) -> Option<(usize, String)> {
    let name = program.modules().get(module)?.string(reference.name)?.to_string();
    Some((program.resolve_slot(module, reference.slot as usize)?, name))
}

impl<'p> TypedValues<'p> {
    pub fn new(program: &'p Program) -> Self {
        let mut records = Vec::new();
        let mut functions = Vec::new();
        for (index, module) in program.modules().iter().enumerate() {
            for decl in 0..module.declaration_count() as u32 {
                let name = module.declaration_name(decl).unwrap_or("").to_string();
                match module.decode_declaration(decl) {
                    Some(Decl::Record { fields, bases, is_abstract, .. }) => {
                        let bases = bases.iter().filter_map(|&base| resolve(program, index, base)).collect();
                        records.push(RecordDecl { module: index, name, fields, is_abstract: is_abstract != 0, bases });
                    }
                    Some(Decl::Function { .. }) => functions.push((module.identity().to_string(), name)),
                    _ => {}
                }
            }
        }
        TypedValues { program, records, functions, made: 0 }
    }

    /// The first record declaration named `name` that declares fields (module order).
    fn record_decl(&self, name: &str) -> Option<&RecordDecl> {
        self.records.iter().find(|record| record.name == name && !record.fields.is_empty())
    }

    /// Whether a record declaration named `name` declares fields.
    pub fn declares_fields(&self, name: &str) -> bool {
        self.record_decl(name).is_some()
    }

    /// A record (`$type` `name`) of the first record declaration named `name` that declares
    /// fields, as [`TypedValues::record`] makes one; `None` when none does.
    pub fn record_named(&mut self, rng: &mut Rng, name: &str) -> Option<HostValue> {
        let found = self.record_decl(name)?;
        let (module, fields) = (found.module, found.fields.clone());
        Some(self.record(rng, module, Some(name.to_string()), &fields, 0))
    }

    /// Arguments for `params` of a function declared in `module`, in order.
    pub fn arguments(&mut self, rng: &mut Rng, module: usize, params: &[Field]) -> Vec<HostValue> {
        self.made = 0;
        params.iter().map(|param| self.value(rng, module, param.ty, 0)).collect()
    }

    /// A value for type `ty` of `module`.
    pub fn value(&mut self, rng: &mut Rng, module: usize, ty: u32, depth: u32) -> HostValue {
        if depth > MAX_TYPE_DEPTH || self.made >= CALL_WEIGHT {
            return HostValue::Null;
        }
        self.made += 1;
        if rng.below(BEND_ONE_IN) == 0 {
            return self.any(rng, depth);
        }
        let Some(found) = self.program.modules().get(module).and_then(|m| m.decode_type(ty)) else {
            return self.any(rng, depth);
        };
        match found {
            Type::Primitive { name } => {
                let name = self.program.modules()[module].string(name).unwrap_or("");
                self.primitive(rng, name, depth)
            }
            Type::Nominal(reference) => match resolve(self.program, module, reference) {
                Some((target, name)) => self.nominal(rng, target, &name, depth),
                None => self.any(rng, depth),
            },
            Type::Function { .. } | Type::AnyFunction { .. } => self.function_value(rng),
            Type::Seq { item, occurrence } => self.seq(rng, module, item, occurrence, depth),
            Type::Constrained { base, low, high, .. } => self.constrained(rng, module, base, low, high),
        }
    }

    fn seq(&mut self, rng: &mut Rng, module: usize, item: u32, occurrence: u32, depth: u32) -> HostValue {
        let (may_be_empty, may_be_many) = (occurrence & 1 != 0, occurrence & 2 != 0);
        let count = match rng.below(8) {
            0 => 0,
            1 if may_be_many => 2 + rng.below(4_000),
            2 if may_be_many => 2 + rng.below(6),
            _ => 1,
        };
        if count == 0 {
            return if may_be_empty && rng.below(2) == 0 { HostValue::Null } else { HostValue::List(Vec::new()) };
        }
        let first = self.value(rng, module, item, depth + 1);
        if count == 1 {
            // One item: bare or in a list of one.
            return if rng.below(2) == 0 { first } else { HostValue::List(vec![first]) };
        }
        if count <= 8 {
            let mut items = vec![first];
            items.extend((1..count).map(|_| self.value(rng, module, item, depth + 1)));
            return HostValue::List(items);
        }
        // Many: one item repeated, as far as the call's weight allows.
        let each = super::fuzz::weight(&first).max(1);
        let count = count.min(CALL_WEIGHT.saturating_sub(self.made) / each).min(u16::MAX as usize);
        self.made += count * each;
        HostValue::List(vec![first; count])
    }

    fn primitive(&mut self, rng: &mut Rng, name: &str, depth: u32) -> HostValue {
        const INTS: [i64; 9] = [0, 1, -1, 42, i64::MAX, i64::MIN, 1 << 31, -(1 << 31) - 1, 9_007_199_254_740_993];
        const FLOATS: [f64; 8] = [0.0, -0.0, 0.5, 2.0, 16_777_217.0, 1e300, f64::NAN, f64::INFINITY];
        match name {
            "int" | "int64" | "int32" => match rng.below(8) {
                0 => HostValue::Int(rng.pick(&INTS)),
                1 => HostValue::Float(rng.pick(&FLOATS)),
                2 if name != "int32" => HostValue::Record(
                    HostRecord::new(Some("nx.int")).with("value", HostValue::Str(rng.pick(&INTS).to_string())),
                ),
                _ => HostValue::Int(rng.below(2_000) as i64 - 1_000),
            },
            "float32" | "float64" => match rng.below(6) {
                0 => HostValue::Float(rng.pick(&FLOATS)),
                1 => HostValue::Int(rng.pick(&INTS)),
                _ => HostValue::Float((rng.below(20_000) as f64 - 10_000.0) / 8.0),
            },
            "string" => HostValue::Str(self.text(rng)),
            "boolean" => HostValue::Bool(rng.below(2) == 0),
            _ => self.any(rng, depth),
        }
    }

    /// A number at or near the ends of a constrained type (`base` a numeric primitive).
    fn constrained(&mut self, rng: &mut Rng, module: usize, base: u32, low: Option<u32>, high: Option<u32>) -> HostValue {
        let program_module = &self.program.modules()[module];
        let end = |index: Option<u32>| match index.and_then(|index| program_module.decode_constant(index)) {
            Some(Constant::Int(value)) => Some(value as f64),
            Some(Constant::Float(value)) => Some(value),
            _ => None,
        };
        let (low, high) = (end(low), end(high));
        let is_int = matches!(program_module.decode_type(base), Some(Type::Primitive { name })
            if program_module.string(name).is_some_and(|name| name.starts_with("int")));
        let point = match (rng.below(5), low, high) {
            (0, Some(low), _) => low,
            (1, _, Some(high)) => high,
            (2, Some(low), _) => low - 1.0,
            (3, _, Some(high)) => high + 0.5,
            (_, Some(low), Some(high)) => low + (high - low) / 2.0,
            (_, Some(low), None) => low + 1.0,
            (_, None, Some(high)) => high - 1.0,
            _ => 0.0,
        };
        if is_int && point.fract() == 0.0 && point.abs() < 9.0e15 {
            HostValue::Int(point as i64)
        } else {
            HostValue::Float(point)
        }
    }

    fn nominal(&mut self, rng: &mut Rng, module: usize, name: &str, depth: u32) -> HostValue {
        let Some(target) = self.program.modules().get(module) else { return self.any(rng, depth) };
        let decl = target.declaration_index(name).and_then(|index| target.decode_declaration(index));
        match decl {
            Some(Decl::Record { fields, is_abstract, .. }) => {
                // A subtype always for an abstract record, at times for a concrete one.
                if is_abstract != 0 || rng.below(4) == 0 {
                    let subtypes: Vec<usize> = (0..self.records.len())
                        .filter(|&at| self.records[at].bases.iter().any(|(m, n)| *m == module && n == name))
                        .filter(|&at| !self.records[at].is_abstract || rng.below(8) == 0)
                        .collect();
                    if !subtypes.is_empty() {
                        let at = subtypes[rng.below(subtypes.len())];
                        let (holder, fields) = (self.records[at].module, self.records[at].fields.clone());
                        let type_name = self.records[at].name.clone();
                        return self.record(rng, holder, Some(type_name), &fields, depth);
                    }
                }
                let type_name = (rng.below(2) == 0).then(|| name.to_string());
                self.record(rng, module, type_name, &fields, depth)
            }
            Some(Decl::Union { cases, .. }) if !cases.is_empty() => {
                let case = &cases[rng.below(cases.len())];
                let case_name = target.string(case.name).unwrap_or("");
                if case.is_constant != 0 {
                    return HostValue::str(case_name);
                }
                let type_name = format!("{name}.{case_name}");
                self.record(rng, module, Some(type_name), &case.fields, depth)
            }
            Some(Decl::Component { props, .. }) => self.record(rng, module, Some(name.to_string()), &props, depth),
            _ => self.any(rng, depth),
        }
    }

    /// A record of `fields` (their types in `module`): an optional field left out at times;
    /// one time in [`BEND_ONE_IN`] a required one left out too, an unknown one added, or two
    /// swapped.
    pub fn record(&mut self, rng: &mut Rng, module: usize, type_name: Option<String>, fields: &[Field], depth: u32) -> HostValue {
        let names = &self.program.modules()[module];
        let mut members = Vec::with_capacity(fields.len());
        for field in fields {
            let required = field.flags & kinds::flags::FIELD_REQUIRED != 0;
            if !required && rng.below(3) == 0 {
                continue;
            }
            let name = names.string(field.name).unwrap_or("").to_string();
            members.push((name, self.value(rng, module, field.ty, depth + 1)));
        }
        if rng.below(BEND_ONE_IN) == 0 {
            match rng.below(3) {
                0 if !members.is_empty() => {
                    members.remove(rng.below(members.len()));
                }
                1 => members.push(("unknownMember".to_string(), HostValue::Int(1))),
                _ if members.len() > 1 => {
                    let (a, b) = (rng.below(members.len()), rng.below(members.len()));
                    members.swap(a, b);
                }
                _ => {}
            }
        }
        HostValue::Record(HostRecord { type_name, fields: members })
    }

    /// A `Function` record naming a function of the program (at times one it does not declare).
    fn function_value(&mut self, rng: &mut Rng) -> HostValue {
        let (module, name) = match self.functions.get(rng.below(self.functions.len())) {
            Some((module, name)) if rng.below(8) != 0 => (module.clone(), name.clone()),
            _ => ("main".to_string(), "undeclared".to_string()),
        };
        HostValue::Record(HostRecord::new(Some("Function")).with("module", HostValue::Str(module)).with("name", HostValue::Str(name)))
    }

    fn text(&mut self, rng: &mut Rng) -> String {
        const WORDS: [&str; 7] = ["", "a", "item 7", "Shape.circle", "é—😀", "nx.int", "Function"];
        match rng.below(6) {
            0 => "x".repeat(rng.below(300)),
            _ => rng.pick(&WORDS).to_string(),
        }
    }

    /// Any value at all: what a bent value holds.
    fn any(&mut self, rng: &mut Rng, depth: u32) -> HostValue {
        match rng.below(if depth >= MAX_TYPE_DEPTH { 6 } else { 8 }) {
            0 => HostValue::Null,
            1 => HostValue::Bool(rng.below(2) == 0),
            2 => HostValue::Int(rng.below(200) as i64 - 100),
            3 => HostValue::Float(rng.below(1_000) as f64 / 8.0),
            4 => HostValue::Str(self.text(rng)),
            5 => HostValue::List(Vec::new()),
            6 => HostValue::List(vec![self.any(rng, depth + 1)]),
            _ => HostValue::Record(HostRecord::new(None).with("value", self.any(rng, depth + 1))),
        }
    }
}

/// Writes a text as the fuzz input's value format does: its length (a `u16` when `long`, else a
/// `u8`), then its bytes, cut at a character boundary to what the length holds.
pub fn encode_text(text: &str, long: bool, out: &mut Vec<u8>) {
    let most = if long { u16::MAX as usize } else { u8::MAX as usize };
    let mut length = text.len().min(most);
    while !text.is_char_boundary(length) {
        length -= 1;
    }
    if long {
        out.extend_from_slice(&(length as u16).to_le_bytes());
    } else {
        out.push(length as u8);
    }
    out.extend_from_slice(&text.as_bytes()[..length]);
}

/// Writes `value` in the fuzz input's value format (see [`super::fuzz`]), which
/// [`super::fuzz::ValueDecoder`] reads back as the same value when the value is within its
/// limits and every list longer than 255 items repeats one item. Longer texts, names and lists
/// are cut to what the format holds. Iterative: a value of any depth.
pub fn encode_value(value: &HostValue, out: &mut Vec<u8>) {
    enum Part<'v> {
        Value(&'v HostValue),
        Name(&'v str),
    }
    let mut pending = vec![Part::Value(value)];
    while let Some(part) = pending.pop() {
        let value = match part {
            Part::Name(name) => {
                encode_text(name, false, out);
                continue;
            }
            Part::Value(value) => value,
        };
        match value {
            HostValue::Null => out.push(0),
            HostValue::Bool(false) => out.push(1),
            HostValue::Bool(true) => out.push(2),
            HostValue::Int(v) => {
                out.push(3);
                out.extend_from_slice(&v.to_le_bytes());
            }
            HostValue::Float(v) => {
                out.push(5);
                out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
            HostValue::Str(s) if s.len() <= u8::MAX as usize => {
                out.push(6);
                encode_text(s, false, out);
            }
            HostValue::Str(s) => {
                out.push(7);
                encode_text(s, true, out);
            }
            HostValue::List(items) if items.len() > u8::MAX as usize && items.iter().all(|item| super::fuzz::same_value(item, &items[0])) => {
                out.push(12);
                out.extend_from_slice(&(items.len().min(u16::MAX as usize) as u16).to_le_bytes());
                pending.push(Part::Value(&items[0]));
            }
            HostValue::List(items) => {
                let items = &items[..items.len().min(u8::MAX as usize)];
                out.push(8);
                out.push(items.len() as u8);
                pending.extend(items.iter().rev().map(Part::Value));
            }
            HostValue::Record(record) => {
                match &record.type_name {
                    Some(name) => {
                        out.push(10);
                        encode_text(name, false, out);
                    }
                    None => out.push(9),
                }
                let fields = &record.fields[..record.fields.len().min(u8::MAX as usize)];
                out.push(fields.len() as u8);
                for (name, value) in fields.iter().rev() {
                    pending.push(Part::Value(value));
                    pending.push(Part::Name(name));
                }
            }
        }
    }
}
