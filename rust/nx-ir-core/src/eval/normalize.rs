//! Checking a value against a declared type ("normalize", ir-format §4.7) and field
//! normalization of constructions (§4.8). A non-seq check costs 1, charged to the declaration
//! whose parameter, result, field or value is checked, with no span.

use std::fmt;
use std::rc::Rc;

use crate::error::{codes, IrError, IrResult};

use super::compiled::{name_key, recheck_work, CDeclKind, CField, CType, CompiledProgram, NoSubtype, Prim, Shape, Target};
use super::machine::{integral, Cx, Frame, Machine};
use super::text::float64_text;
use super::value::{CaseValue, Fields, FunctionRef, Name, Record, Value, INDEXED_FIELDS};

/// Where a value sits, for messages; printed only on failure.
#[derive(Clone, Copy)]
pub(crate) enum Path<'a> {
    Root(&'a str),
    /// A root named `before` + name + `after` (e.g. `return value for 'f'`), put together
    /// only when a message prints it.
    Named(&'static str, &'a str, &'static str),
    Field(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of function `name`'s result.
    pub fn result(name: &'a str) -> Path<'a> {
        Path::Named("return value for '", name, "'")
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut segments = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root(root) => {
                    f.write_str(root)?;
                    break;
                }
                Path::Named(before, name, after) => {
                    f.write_str(before)?;
                    f.write_str(name)?;
                    f.write_str(after)?;
                    break;
                }
                Path::Field(parent, _) | Path::Index(parent, _) => {
                    segments.push(at);
                    at = parent;
                }
            }
        }
        for segment in segments.iter().rev() {
            match segment {
                Path::Field(_, name) => write!(f, ".{name}")?,
                Path::Index(_, index) => write!(f, "[{index}]")?,
                Path::Root(_) | Path::Named(..) => {}
            }
        }
        Ok(())
    }
}

fn boundary(message: String) -> IrError {
    IrError::new(codes::BOUNDARY_TYPE, message)
}

impl<'p> Machine<'p> {
    fn ty(&self, module: u32, ty: u32) -> Option<&'p CType> {
        let prog: &'p CompiledProgram = self.prog;
        prog.modules.get(module as usize).and_then(|m| m.types.get(ty as usize))
    }

    pub fn admits_empty(&self, module: u32, ty: u32) -> bool {
        matches!(self.ty(module, ty), Some(CType::Seq { may_be_empty: true, .. }))
    }

    /// Whether a record keeps a field of type `ty` holding `value`: a field left empty where its
    /// type allows that is not stored.
    pub fn stored(&self, module: u32, ty: u32, value: &Value) -> bool {
        !(value.is_empty() && self.admits_empty(module, ty))
    }

    pub fn admits_many(&self, module: u32, ty: u32) -> bool {
        matches!(self.ty(module, ty), Some(CType::Seq { may_be_many: true, .. }))
    }

    /// Normalizes `value` to type `ty` of `cx.module`, charging checks to `cx.decl`.
    #[inline]
    pub fn normalize(&mut self, cx: Cx, ty: u32, value: Value, path: &Path<'_>) -> IrResult<Value> {
        // The common exact matches of a primitive site: checked and kept as they are (nothing
        // nests, so there is no stack to check).
        if self.checked_exact(cx, ty, &value)? {
            return Ok(value);
        }
        self.normalize_checked(cx, ty, value, path)
    }

    /// Whether `value` is an exact match of the primitive type `ty` (of `cx.module`), which
    /// checking keeps as it is: then checked as [`Machine::normalize`] checks it (its tally and
    /// its one charge), without a copy of the value to check and drop.
    #[inline(always)]
    fn checked_exact(&mut self, cx: Cx, ty: u32, value: &Value) -> IrResult<bool> {
        let Some(CType::Prim(prim)) = self.ty(cx.module, ty) else { return Ok(false) };
        if !exact_primitive(prim, value) {
            return Ok(false);
        }
        self.tally(1);
        if !self.charge_one() {
            self.charge(cx, None, 1)?;
        }
        Ok(true)
    }

    /// [`Machine::normalize`] past its exact primitive matches.
    #[inline(never)]
    fn normalize_checked(&mut self, cx: Cx, ty: u32, value: Value, path: &Path<'_>) -> IrResult<Value> {
        if !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        let Some(ctype) = self.ty(cx.module, ty) else {
            return Err(self.error(cx, None, codes::MALFORMED, "NX IR image is malformed: no such type."));
        };
        // A record already normal at this declaration (as a host argument read in its layout
        // is): its checks' charges (this check's 1 and `recheck_cost`'s) taken at once where
        // all fit the fast path, so none can fail and none is attributed anywhere else.
        if let (CType::Nominal(Target::Decl { module, decl }), Value::Record(record)) = (ctype, &value) {
            if let Some((charges, work)) = self.recheck_cost(*module, *decl, record, 0) {
                if charges < self.fast_room() {
                    self.remaining -= 1 + charges;
                    self.tally(1 + work);
                    return Ok(value);
                }
            }
        }
        self.tally(1);
        if let CType::Seq { item, may_be_empty, may_be_many } = ctype {
            let single;
            let items: &[Value] = match &value {
                Value::Seq(items) => items,
                other => {
                    single = [other.clone()];
                    &single
                }
            };
            self.tally(items.len() as u64);
            if items.is_empty() {
                if *may_be_empty {
                    return Ok(Value::empty());
                }
                return Err(boundary(format!("Expected {path} to hold at least one value, got the empty value.")));
            }
            if !may_be_many {
                if items.len() != 1 {
                    return Err(boundary(format!("Expected {path} to hold at most one value, got a sequence of {}.", items.len())));
                }
                let only = items[0].clone();
                return self.normalize(cx, *item, only, &Path::Index(path, 0));
            }
            // A list held here alone (as a host argument just read is) is checked in place:
            // each item replaced by its normal form, the same checks in the same order.
            let mut value = value;
            if let Value::Seq(list) = &mut value {
                if let Some(owned) = Rc::get_mut(list) {
                    for (i, element) in owned.iter_mut().enumerate() {
                        if self.checked_exact(cx, *item, element)? {
                            continue;
                        }
                        let taken = std::mem::replace(element, Value::Bool(false));
                        *element = self.normalize(cx, *item, taken, &Path::Index(path, i))?;
                    }
                    return Ok(value);
                }
            }
            // A list held elsewhere too: each item checked as it is, and the list copied only
            // from the first item checking changes; a list whose every item comes back as the
            // very value it was is kept, not rebuilt.
            let Value::Seq(list) = &value else {
                let only = self.normalize(cx, *item, value, &Path::Index(path, 0))?;
                return Ok(Value::seq(vec![only]));
            };
            let items: &[Value] = list;
            let mut changed: Option<Vec<Value>> = None;
            for (i, element) in items.iter().enumerate() {
                if changed.is_none() && self.checked_exact(cx, *item, element)? {
                    continue;
                }
                let normal = self.normalize(cx, *item, element.clone(), &Path::Index(path, i))?;
                match &mut changed {
                    Some(out) => out.push(normal),
                    None if normal.is(element) => {}
                    None => {
                        let mut out = Vec::with_capacity(items.len());
                        out.extend_from_slice(&items[..i]);
                        out.push(normal);
                        changed = Some(out);
                    }
                }
            }
            return Ok(match changed {
                Some(out) => Value::seq(out),
                None => value,
            });
        }
        let is_object = matches!(ctype, CType::Prim(Prim::Object));
        let mut value = value;
        if !is_object {
            while let Value::Seq(items) = &value {
                value = match items.len() {
                    1 => items[0].clone(),
                    0 => return Err(boundary(format!("Expected {path} to hold a value, got the empty value."))),
                    n => return Err(boundary(format!("Expected {path} to hold one value, got a sequence of {n}."))),
                };
            }
        }
        self.charge(cx, None, 1)?;
        match ctype {
            CType::Prim(prim) => self.normalize_primitive(prim, value, path),
            CType::Constrained(constrained) => {
                // Read at the base first, so a float32 is compared once rounded.
                let value = self.normalize_primitive(&constrained.prim, value, path)?;
                self.within_interval(&constrained.interval, value, path)
            }
            CType::Nominal(target) => self.normalize_nominal(cx, target, value, path),
            CType::Component { module, decl } => self.normalize_component(cx, *module, *decl, value, path),
            CType::Function => match &value {
                Value::Function(_) => Ok(value),
                other => match function_record(other) {
                    Some((module, name)) => {
                        let function = self.resolve_function(module, name, path)?;
                        Ok(Value::Function(function))
                    }
                    None => Err(boundary(format!("Expected {path} to be a function value."))),
                },
            },
            CType::Seq { .. } => Ok(value),
        }
    }

    /// [`Machine::normalize`] of a call's result for the host. A single value where a list of
    /// many is declared is checked as that list's one item and handed back unwrapped, with
    /// `true`: the writer writes it as a one-item list (see [`Machine::write_one_item_list`])
    /// and the list is never built. Charges and failures are those of `normalize`.
    pub fn normalize_result(&mut self, cx: Cx, ty: u32, value: Value, path: &Path<'_>) -> IrResult<(Value, bool)> {
        let single = self.prog.shortcuts && !matches!(value, Value::Seq(_));
        if let (Some(CType::Seq { item, may_be_many: true, .. }), true) = (self.ty(cx.module, ty), single) {
            if !self.stack_ok() {
                return Err(self.value_stack_error());
            }
            // The list's own check and its one item, as `normalize` tallies them.
            self.tally(2);
            let item = self.normalize(cx, *item, value, &Path::Index(path, 0))?;
            return Ok((item, true));
        }
        Ok((self.normalize(cx, ty, value, path)?, false))
    }

    /// Resolves a `Function` record's module and name to a linked function.
    pub fn resolve_function(&self, module: &str, name: &str, path: &dyn fmt::Display) -> IrResult<FunctionRef> {
        self.prog.resolve_function(module, name, path)
    }

    pub(crate) fn normalize_primitive(&self, prim: &Prim, value: Value, path: &Path<'_>) -> IrResult<Value> {
        let fail = |message: String| Err(boundary(message));
        match prim {
            Prim::Int => match value {
                Value::Int(_) => Ok(value),
                Value::Float(f) => Ok(integral(f).map(Value::Int).unwrap_or(value)),
                Value::Record(ref record) if record.type_name() == Some("nx.int") => {
                    match record.get("value").and_then(Value::as_text).map(str::parse::<i64>) {
                        Some(Ok(i)) => Ok(Value::Int(i)),
                        _ => fail(format!("Expected {path} to be a number.")),
                    }
                }
                _ => fail(format!("Expected {path} to be a number.")),
            },
            Prim::Int32 => {
                let (integer, shown) = match &value {
                    Value::Int(i) => (Some(*i), i.to_string()),
                    Value::Float(f) => (integral(*f), float64_text(*f)),
                    _ => return fail(format!("Expected {path} to be a number.")),
                };
                match integer {
                    None => fail(format!("Expected {path} to be an int32, got {shown}.")),
                    Some(i) if i32::try_from(i).is_err() => {
                        fail(format!("Expected {path} to be an int32, got {shown} (out of range for int32)."))
                    }
                    Some(i) => Ok(Value::Int(i)),
                }
            }
            Prim::Float64 => match value {
                Value::Float(_) => Ok(value),
                Value::Int(i) => Ok(Value::Float(i as f64)),
                _ => fail(format!("Expected {path} to be a number.")),
            },
            Prim::Float32 => {
                let wide = match value {
                    Value::Float(f) => f,
                    Value::Int(i) => i as f64,
                    _ => return fail(format!("Expected {path} to be a number.")),
                };
                let rounded = wide as f32 as f64;
                if wide.fract() == 0.0 && rounded != wide {
                    return fail(format!("Expected {path} to be a float32, got {} (not exact as a float32).", float64_text(wide)));
                }
                Ok(Value::Float(rounded))
            }
            Prim::String => match value {
                Value::Str(_) | Value::Case(_) => Ok(value),
                _ => fail(format!("Expected {path} to be a string.")),
            },
            Prim::Boolean => match value {
                Value::Bool(_) => Ok(value),
                _ => fail(format!("Expected {path} to be a boolean.")),
            },
            Prim::Object => Ok(value),
            Prim::Unknown(name) => Err(IrError::new(codes::SCHEMA, format!("Unknown primitive type '{name}'."))),
        }
    }

    fn normalize_nominal(&mut self, cx: Cx, target: &Target, value: Value, path: &Path<'_>) -> IrResult<Value> {
        let (module, decl) = match target {
            Target::Decl { module, decl } => (*module, *decl),
            Target::Missing(message) => return Err(self.error(cx, None, codes::REFERENCE, message.to_string())),
        };
        let prog: &'p CompiledProgram = self.prog;
        let declaration = prog.decl(module, decl);
        let display = &declaration.name;
        let dcx = Cx { module, decl, depth: cx.depth };
        match &declaration.kind {
            CDeclKind::Record { fields, update_target: Some(_), .. } => {
                let record = self.require_record(&value, path)?;
                if let Some(tn) = record.type_name().filter(|t| *t != &**display) {
                    return Err(boundary(format!("Expected {path} to be a {display}, got '{tn}'.")));
                }
                let fields = self.normalize_patch_fields(dcx, fields, &record.fields.as_slice(), path)?;
                Ok(Value::Record(Record::new_rc(Some(Name::clone(display)), fields)))
            }
            CDeclKind::Record { fields, is_abstract, .. } => {
                let record = self.require_record(&value, path)?;
                if let Some(tn) = record.other_type_name(display).cloned() {
                    let shape = self.resolve_subtype(&tn, module, decl, display, path)?;
                    let scx = Cx { module: shape.module, decl: shape.decl, depth: cx.depth };
                    let (sub_fields, _) = self.shape_fields(shape.module, shape.decl, shape.case);
                    // Normalized against this subtype (or union case) before, every field
                    // present: given back, with the charges of checking it again.
                    if record.is_normal_at(shape.module, shape.decl, sub_fields.len()) {
                        let unit_checked = prog.decl(shape.module, shape.decl).unit_checked;
                        self.recheck_fields(scx, sub_fields, record, unit_checked, path)?;
                        return Ok(value);
                    }
                    let mut frame = Frame::new();
                    let fields = self.normalize_fields(scx, sub_fields, &record.fields.as_slice(), &mut frame, path, false)?;
                    return Ok(Value::Record(Record::normalized_rc(tn, fields, shape.module, shape.decl, false)));
                }
                // Nothing is an instance of an abstract record, not even a value built as one
                // (which only an altered image can build).
                if *is_abstract {
                    let message = match record.type_name() {
                        None => format!("Expected {path} to be a concrete type extending {display}, got an object with no '$type' discriminator naming one."),
                        Some(_) => format!("Expected {path} to be a concrete type extending {display}, got abstract '{display}'."),
                    };
                    return Err(boundary(message));
                }
                if record.is_normal_at(module, decl, fields.len()) {
                    // Normalized against this very declaration before, every field present (so
                    // no default is evaluated and no required field is missing): checking it
                    // again gives it back unchanged, so only the checks' charges are made.
                    self.recheck_fields(dcx, fields, record, declaration.unit_checked, path)?;
                    return Ok(value);
                }
                let mut frame = Frame::new();
                let fields = self.normalize_fields(dcx, fields, &record.fields.as_slice(), &mut frame, path, false)?;
                Ok(Value::Record(Record::normalized_rc(Name::clone(display), fields, module, decl, false)))
            }
            CDeclKind::Union { cases, index, .. } => {
                if let Some(text) = value.as_text() {
                    let (named, work) = index.find(cases, text);
                    self.tally(work);
                    return match named.and_then(|named| cases.get(named.constant as usize)) {
                        Some(case) => Ok(Value::Case(Rc::new(CaseValue { case: Name::clone(&case.name) }))),
                        None => Err(boundary(format!("Invalid constant union case for {path}: '{text}' is not a case of {display}."))),
                    };
                }
                let record = self.require_record(&value, path)?;
                let Some(type_name) = record.type_name.clone() else {
                    return Err(boundary(format!("Expected {path} to include a '$type' discriminator.")));
                };
                let Some(case_name) = type_name.strip_prefix(&**display).and_then(|rest| rest.strip_prefix('.')) else {
                    return Err(boundary(format!("Expected {path} to be a {display} union case.")));
                };
                let (named, work) = index.find(cases, case_name);
                self.tally(work);
                let Some(case) = named.and_then(|named| cases.get(named.first as usize)) else {
                    return Err(boundary(format!("Invalid union case '{type_name}' for {path}.")));
                };
                // The `$type` names the case, so a record normal at this union is of this case.
                if record.is_normal_at(module, decl, case.fields.len()) {
                    self.recheck_fields(dcx, &case.fields, record, false, path)?;
                    return Ok(value);
                }
                let mut frame = Frame::new();
                let fields = self.normalize_fields(dcx, &case.fields, &record.fields.as_slice(), &mut frame, path, false)?;
                Ok(Value::Record(Record::normalized_rc(type_name, fields, module, decl, false)))
            }
            _ => Ok(value),
        }
    }

    /// The charges (and work) [`Machine::normalize_fields`] makes over a record it already
    /// normalized against `fields`, every one of them present: each field checked again, in
    /// declaration order (the order normalizing stored them in).
    /// With `unit_checked` (see [`super::compiled::CDecl::unit_checked`]) those charges are
    /// one per field, made without checking each field again.
    fn recheck_fields(&mut self, cx: Cx, fields: &[CField], record: &Record, unit_checked: bool, path: &Path<'_>) -> IrResult<()> {
        self.tally(recheck_work(fields.len()));
        if unit_checked {
            let count = fields.len() as u64;
            self.tally(count);
            return self.charge_each(cx, count);
        }
        for (field, (name, value)) in fields.iter().zip(&record.fields) {
            debug_assert!(Name::ptr_eq(name, &field.name));
            if self.checked_exact(cx, field.ty, value)? {
                continue;
            }
            self.normalize(cx, field.ty, value.clone(), &Path::Field(path, &field.name))?.dispose();
        }
        Ok(())
    }

    /// The charges and work of checking `record` again against the record declaration
    /// `decl` of `module` (`normalize_nominal` past its own charge, and `recheck_fields`),
    /// when that check gives it back unchanged and cannot fail but on the budget: the record
    /// was normalized against this declaration, every field present, and each field is an
    /// exact primitive or (two levels down at most) such a record again; a record normal all
    /// the way down ([`Record::deep`]) at its declaration's cost, without a look at its fields.
    /// `None` where the check is to be made field by field.
    fn recheck_cost(&self, module: u32, decl: u32, record: &Record, depth: u32) -> Option<(u64, u64)> {
        let prog: &'p CompiledProgram = self.prog;
        let declaration = prog.decl(module, decl);
        let CDeclKind::Record { fields, is_abstract: false, update_target: None, .. } = &declaration.kind else {
            return None;
        };
        if !record.is_normal_at(module, decl, fields.len()) || record.other_type_name(&declaration.name).is_some() {
            return None;
        }
        if record.deep {
            if let Some(cost) = declaration.deep_recheck {
                return Some(cost);
            }
        }
        let count = fields.len() as u64;
        // `recheck_fields`' own tally, then one unit per field checked.
        let work = recheck_work(fields.len());
        if declaration.unit_checked {
            return Some((count, work + count));
        }
        let Fields::Flat(stored) = &record.fields else { return None };
        let (mut charges, mut work) = (0u64, work);
        for (field, (_, value)) in fields.iter().zip(stored) {
            match self.ty(module, field.ty) {
                Some(CType::Prim(prim)) if exact_primitive(prim, value) => {
                    charges += 1;
                    work += 1;
                }
                Some(CType::Nominal(Target::Decl { module, decl })) if depth < 2 => {
                    let Value::Record(inner) = value else { return None };
                    // The nested check's own tally and charge, then its fields'.
                    let (inner_charges, inner_work) = self.recheck_cost(*module, *decl, inner, depth + 1)?;
                    charges += 1 + inner_charges;
                    work += 1 + inner_work;
                }
                _ => return None,
            }
        }
        Some((charges, work))
    }

    pub(crate) fn require_record<'v>(&self, value: &'v Value, path: &Path<'_>) -> IrResult<&'v Record> {
        match value {
            Value::Record(record) => Ok(record),
            _ => Err(boundary(format!("Expected {path} to be an object."))),
        }
    }

    /// The shape a `$type` names where a value of the record `expected` is asked for: a record
    /// or a non-constant union case whose declaration directly extends `expected`.
    fn resolve_subtype(
        &mut self,
        discriminator: &Name,
        expected_module: u32,
        expected_decl: u32,
        expected: &str,
        path: &Path<'_>,
    ) -> IrResult<Shape> {
        let prog = self.prog;
        // Found by address where the name is the program's own, else by its text (hashed), and
        // each shape of the name looked at: tallied as `Machine::updates` tallies its look-up.
        let shapes = prog.shapes_of(discriminator);
        self.tally(1 + discriminator.len() as u64 / 64 + shapes.len() as u64);
        prog.subtype_of(shapes, expected_module, expected_decl).map_err(|missing| match missing {
            NoSubtype::None => boundary(format!("Expected {path} to be a {expected}, got '{discriminator}'.")),
            NoSubtype::Ambiguous(count) => boundary(format!(
                "Ambiguous subtype at {path}: {count} declarations named '{discriminator}' extend {expected}, and a '$type' discriminator cannot tell them apart."
            )),
            NoSubtype::Abstract => {
                boundary(format!("Expected {path} to be a concrete type extending {expected}, got abstract '{discriminator}'."))
            }
        })
    }

    /// Full field normalization: unknown names refused, each declared field in order taken,
    /// defaulted or emptied, slots bound from the frame's current length.
    pub fn normalize_fields(
        &mut self,
        cx: Cx,
        fields: &[CField],
        input: &[(Name, Value)],
        frame: &mut Frame,
        path: &Path<'_>,
        explicit: bool,
    ) -> IrResult<Vec<(Name, Value)>> {
        let mut input = FieldInput::Shared(input);
        self.normalize_fields_from(cx, fields, &mut input, frame, path, explicit, false)
    }

    /// [`Machine::normalize_fields`] that binds every field in the frame, from its current
    /// length, whether or not a default reads it: a component's props and state, whose slots
    /// its body reads.
    pub fn normalize_fields_bound(
        &mut self,
        cx: Cx,
        fields: &[CField],
        input: &[(Name, Value)],
        frame: &mut Frame,
        path: &Path<'_>,
        explicit: bool,
    ) -> IrResult<Vec<(Name, Value)>> {
        let mut input = FieldInput::Shared(input);
        self.normalize_fields_from(cx, fields, &mut input, frame, path, explicit, true)
    }

    /// [`Machine::normalize_fields`] over input the caller owns: each value is moved out of it
    /// rather than copied (the input is left holding placeholders).
    pub fn normalize_owned_fields(
        &mut self,
        cx: Cx,
        fields: &[CField],
        input: &mut [(Name, Value)],
        frame: &mut Frame,
        path: &Path<'_>,
        explicit: bool,
    ) -> IrResult<Vec<(Name, Value)>> {
        let mut input = FieldInput::Owned(input);
        self.normalize_fields_from(cx, fields, &mut input, frame, path, explicit, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn normalize_fields_from(
        &mut self,
        cx: Cx,
        fields: &[CField],
        input: &mut FieldInput<'_>,
        frame: &mut Frame,
        path: &Path<'_>,
        explicit: bool,
        bind_all: bool,
    ) -> IrResult<Vec<(Name, Value)>> {
        let index = self.written_names(fields, input, path)?;
        let first_slot = frame.len() as u32;
        // Fields are bound in the frame only for defaults to read.
        let binds = bind_all || fields.iter().any(|f| f.default.is_some());
        let mut out = Vec::with_capacity(fields.len());
        for (offset, field) in fields.iter().enumerate() {
            let given = match &index {
                Some(at) => at.get(&name_key(&field.name)).map(|&position| input.take_at(position as usize)),
                None => input.take(&field.name),
            };
            let value = match (given, field.default) {
                (None, Some(default)) if !explicit => {
                    let result = self.eval(cx, frame, default).and_then(|value| {
                        self.normalize(cx, field.ty, value, &Path::Field(path, &field.name))
                    });
                    match result {
                        Ok(value) => value,
                        Err(error) => {
                            self.default_failed = true;
                            return Err(error);
                        }
                    }
                }
                (given, _) => self.given_field(cx, field, given, path)?,
            };
            self.keep_field(cx, (frame, first_slot + offset as u32), &mut out, field, value, binds)?;
        }
        Ok(out)
    }

    /// A field's value when no default is evaluated for it: the value written, checked against
    /// the field's type; else the empty value, or the failure of a missing required field.
    /// Out of line (as [`Machine::keep_field`]): what only these need stays out of the frame a
    /// default's evaluation nests below.
    #[inline(never)]
    fn given_field(&mut self, cx: Cx, field: &CField, given: Option<Value>, path: &Path<'_>) -> IrResult<Value> {
        match given {
            Some(value) => self.normalize(cx, field.ty, value, &Path::Field(path, &field.name)),
            None if !field.required && self.admits_empty(cx.module, field.ty) => Ok(Value::empty()),
            None => Err(self.missing_field(cx, &field.name, path)),
        }
    }

    /// Puts a field's checked value among `out` when the record stores it, and binds it in the
    /// frame's slot when the fields are bound (`binds`).
    #[inline(never)]
    fn keep_field(
        &mut self,
        cx: Cx,
        (frame, slot): (&mut Frame, u32),
        out: &mut Vec<(Name, Value)>,
        field: &CField,
        value: Value,
        binds: bool,
    ) -> IrResult<()> {
        let kept = self.stored(cx.module, field.ty, &value);
        if !binds {
            if kept {
                out.push((Name::clone(&field.name), value));
            }
            return Ok(());
        }
        if kept {
            out.push((Name::clone(&field.name), value.clone()));
        }
        self.bind(cx, frame, slot, value)
    }

    /// Checks that each written field is declared (the charges of the look-ups tallied), and
    /// gives an index of the written names when there are many. Out of line: its temporaries
    /// stay out of the frame a default's evaluation nests below.
    #[inline(never)]
    fn written_names(&mut self, fields: &[CField], input: &FieldInput<'_>, path: &Path<'_>) -> IrResult<Option<Positions>> {
        let taken = input.len();
        // Many written fields: found through an index of their names (by address), so the
        // work is linear in the fields written and declared, not their product.
        let index = (taken > INDEXED_FIELDS).then(|| positions(input.names()));
        if let Some(at) = &index {
            self.tally(2 * (taken as u64 + fields.len() as u64));
            let known = fields.iter().filter(|f| at.contains_key(&name_key(&f.name))).count();
            if known < taken {
                let declared: Positions = positions(fields.iter().map(|f| &f.name));
                if let Some(key) = input.names().find(|key| !declared.contains_key(&name_key(key))) {
                    return Err(IrError::new(codes::BOUNDARY_FIELD, format!("Unknown {path} field '{key}'.")));
                }
            }
        } else {
            // Each name is looked up among the declared fields, then each declared field among
            // the input: a few written fields, scanned.
            self.tally((taken as u64 + 1) * (fields.len() as u64 + 1));
            for key in input.names() {
                if !fields.iter().any(|f| Name::ptr_eq(&f.name, key)) {
                    return Err(IrError::new(codes::BOUNDARY_FIELD, format!("Unknown {path} field '{key}'.")));
                }
            }
        }
        Ok(index)
    }

    #[cold]
    #[inline(never)]
    fn missing_field(&self, cx: Cx, name: &Name, path: &Path<'_>) -> IrError {
        self.error(cx, None, codes::BOUNDARY_FIELD, format!("Missing required {path} field '{name}'."))
    }

    /// Update-record fields: only the present ones, a present empty value kept as "cleared".
    pub fn normalize_patch_fields(
        &mut self,
        cx: Cx,
        fields: &[CField],
        input: &[(Name, Value)],
        path: &Path<'_>,
    ) -> IrResult<Vec<(Name, Value)>> {
        // Each name is looked up among the declared fields, then each declared field among
        // the input: both scans are bounded by the declaration's size once unknown names fail.
        self.tally((input.len() as u64 + 1) * (fields.len() as u64 + 1));
        for (key, _) in input {
            if !fields.iter().any(|f| Name::ptr_eq(&f.name, key)) {
                return Err(IrError::new(codes::BOUNDARY_FIELD, format!("Unknown {path} field '{key}'.")));
            }
        }
        let mut out = Vec::new();
        for field in fields {
            let Some(value) = input.iter().find(|(k, _)| Name::ptr_eq(k, &field.name)).map(|(_, v)| v.clone())
            else {
                continue;
            };
            if value.is_empty() && !self.admits_empty(cx.module, field.ty) {
                return Err(boundary(format!(
                        "Expected {path}.{} to hold a value; an update record clears a field only where the target declares it optional.",
                        field.name
                    )));
            }
            let value = self.normalize(cx, field.ty, value, &Path::Field(path, &field.name))?;
            out.push((Name::clone(&field.name), value));
        }
        Ok(out)
    }
}

/// Whether `value` is kept as it is at a site of the primitive `prim`, checked for its one
/// charge alone (see [`Machine::normalize`]).
#[inline(always)]
fn exact_primitive(prim: &Prim, value: &Value) -> bool {
    matches!(
        (prim, value),
        (Prim::Int, Value::Int(_))
            | (Prim::Float64, Value::Float(_))
            | (Prim::String, Value::Str(_) | Value::Case(_))
            | (Prim::Boolean, Value::Bool(_))
            | (Prim::Object, _)
    )
}

type Positions = std::collections::HashMap<usize, u32, std::hash::BuildHasherDefault<super::compiled::NameHasher>>;

/// Each name's first position, keyed by its address (names are interned).
fn positions<'n>(names: impl Iterator<Item = &'n Name>) -> Positions {
    let mut at = Positions::default();
    for (position, name) in names.enumerate() {
        at.entry(name_key(name)).or_insert(position as u32);
    }
    at
}

/// The written fields a construction or a host record supplies, read once per declared field.
enum FieldInput<'a> {
    /// Shared with a value that lives on: each value read is a copy.
    Shared(&'a [(Name, Value)]),
    /// The caller's own: each value read is moved out.
    Owned(&'a mut [(Name, Value)]),
}

impl FieldInput<'_> {
    fn len(&self) -> usize {
        match self {
            FieldInput::Shared(input) => input.len(),
            FieldInput::Owned(input) => input.len(),
        }
    }

    fn names(&self) -> impl Iterator<Item = &Name> {
        let input: &[(Name, Value)] = match self {
            FieldInput::Shared(input) => input,
            FieldInput::Owned(input) => input,
        };
        input.iter().map(|(name, _)| name)
    }

    /// The value at `position` (read at most once).
    fn take_at(&mut self, position: usize) -> Value {
        match self {
            FieldInput::Shared(input) => input[position].1.clone(),
            FieldInput::Owned(input) => std::mem::replace(&mut input[position].1, Value::Bool(false)),
        }
    }

    /// The value written for `name` (each name is written at most once and read at most once).
    #[inline]
    fn take(&mut self, name: &Name) -> Option<Value> {
        match self {
            FieldInput::Shared(input) => input.iter().find(|(k, _)| Name::ptr_eq(k, name)).map(|(_, v)| v.clone()),
            FieldInput::Owned(input) => input
                .iter_mut()
                .find(|(k, _)| Name::ptr_eq(k, name))
                .map(|(_, v)| std::mem::replace(v, Value::Bool(false))),
        }
    }
}

/// `{ "$type": "Function", module, name }` from a host.
pub(crate) fn function_record(value: &Value) -> Option<(&str, &str)> {
    let record = value.as_record()?;
    if record.type_name() != Some("Function") {
        return None;
    }
    match (record.get("module"), record.get("name")) {
        (Some(Value::Str(module)), Some(Value::Str(name))) => Some((module, name)),
        _ => None,
    }
}

impl CompiledProgram {
    /// Resolves a `Function` record's module and name to a linked function; `path` names the
    /// record in an error.
    pub(crate) fn resolve_function(&self, module: &str, name: &str, path: &dyn fmt::Display) -> IrResult<FunctionRef> {
        let Some(m) = self.module_by_identity(module) else {
            return Err(IrError::new(
                codes::FUNCTION_VALUE,
                format!("{path} names function '{name}' of module '{module}', which the program does not link."),
            ));
        };
        let found = self.modules[m as usize].decl_by_name.get(name).copied();
        match found {
            Some(d) if matches!(self.decl(m, d).kind, CDeclKind::Function { .. }) => Ok(FunctionRef { module: m, decl: d }),
            _ => Err(IrError::new(
                codes::FUNCTION_VALUE,
                format!("{path} names function '{name}', which module '{module}' does not declare."),
            )),
        }
    }
}
