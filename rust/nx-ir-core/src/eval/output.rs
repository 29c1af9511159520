//! Canonical output (ir-format §5, charge 6 of §6.1) and reading host values into runtime values.

use std::rc::Rc;

use crate::error::IrResult;

use super::cost::{limit_error, MAX_VALUE_NESTING};
use super::host::{HostRead, HostValueSink, HostValueSource, Member};
use super::machine::{Cx, Machine};

use super::compiled::{CDeclKind, CField, CType, CompiledProgram, Prim, Target};
use super::seq::Texts;
use super::value::{text_cost, Name, Record, Text, Value};

impl Machine<'_> {
    /// Writes `value` for the host, charging each value written to `cx` (no span).
    ///
    /// A value's charge is made in one piece before it is written, as the reference runtime
    /// makes it: 1 for the value, plus for a text its text cost, and for a record the text cost
    /// of its type name and of every field name. A budget that cannot cover the whole of it
    /// refuses it whole, so the usage of a failed call never counts part of a charge.
    pub fn write<S: HostValueSink>(&mut self, cx: Cx, value: &Value, sink: &mut S) -> IrResult<S::Out> {
        match value {
            Value::Str(s) => self.write_text(cx, s, sink),
            Value::Case(case) => {
                self.charge_text_written(cx, &case.case, false)?;
                sink.str(&case.case)
            }
            Value::Record(record) => self.write_record(cx, record, sink),
            Value::Seq(items) => {
                if !self.stack_ok() {
                    return Err(self.value_stack_error());
                }
                self.charge_written(cx)?;
                match items.texts() {
                    Some(texts) => self.write_texts(cx, texts, sink),
                    None => self.write_items(cx, items, sink),
                }
            }
            Value::Bool(b) => {
                self.charge_written(cx)?;
                sink.bool(*b)
            }
            Value::Int(i) => {
                self.charge_written(cx)?;
                sink.int(*i)
            }
            Value::Float(f) => {
                self.charge_written(cx)?;
                sink.float(*f)
            }
            Value::Function(function) => {
                self.charge_written(cx)?;
                let prog = self.prog;
                let module = &prog.modules[function.module as usize];
                let name = &module.decls[function.decl as usize].name;
                let fields = vec![("module", sink.str(&module.identity)?), ("name", sink.str(name)?)];
                sink.record(Some("Function"), fields)
            }
            Value::Handler(handler) => {
                self.charge_written(cx)?;
                let action = sink.str(&handler.action)?;
                match self.tokens.as_mut() {
                    None => sink.record(Some("ActionHandler"), vec![("action", action)]),
                    Some(tokens) => {
                        // A rendered output: the handler takes the next token of its generation.
                        tokens.handlers.push(Rc::clone(handler));
                        let token = format!("h{}-{}", tokens.generation, tokens.handlers.len());
                        let token = sink.str(&token)?;
                        sink.record(Some("ActionHandler"), vec![("action", action), ("token", token)])
                    }
                }
            }
        }
    }

    /// A record written: its one charge (see [`Machine::write`]), then its fields in byte order
    /// of their names.
    #[inline]
    fn write_record<S: HostValueSink>(&mut self, cx: Cx, record: &Record, sink: &mut S) -> IrResult<S::Out> {
        if !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        self.tally(record.fields.len() as u64);
        // By position: a wide record's fields are listed once.
        let fields = record.fields.as_slice();
        if let (Some((module, decl)), Some(type_name)) = (record.normal_of, record.type_name.as_deref()) {
            let prog = self.prog;
            let declaration = prog.decl(module, decl);
            let order = &declaration.output_order;
            // A union case's record is normal at its union, whose cases differ in shape.
            if order.len() == record.fields.len() && matches!(declaration.kind, CDeclKind::Record { .. }) {
                // Every declared field present, stored in declaration order: its names are the
                // declaration's, whose text cost is known, and it is written in the
                // declaration's own output order, as a shape the sink may know.
                let names_cost = if self.budgeted { declaration.written_names_cost } else { 0 };
                self.charge_written_with(cx, names_cost)?;
                return sink.shaped_record((module, decl), type_name, order.len(), |sink, at| {
                    let (name, item) = &fields[order[at] as usize];
                    let written = match self.prog.shortcuts {
                        true => self.write_member(cx, item, sink),
                        false => self.write(cx, item, sink),
                    };
                    Ok((&**name, written?))
                });
            }
        }
        let names_cost = if self.budgeted {
            fields.iter().map(|(name, _)| text_cost(name)).fold(record.type_name.as_deref().map_or(0, text_cost), u64::saturating_add)
        } else {
            0
        };
        self.charge_written_with(cx, names_cost)?;
        let update = record.type_name.as_deref().is_some_and(|t| t.ends_with(".Update"));
        // Field positions in byte order of their names; small records sort on the stack.
        let count = record.fields.len();
        let mut small = [0u32; 16];
        let mut large = Vec::new();
        let order: &mut [u32] = if count <= small.len() {
            for (i, slot) in small.iter_mut().enumerate().take(count) {
                *slot = i as u32;
            }
            &mut small[..count]
        } else {
            large.extend(0..count as u32);
            &mut large
        };
        order.sort_unstable_by(|a, b| byte_order(&fields[*a as usize].0, &fields[*b as usize].0));
        let mut written = Vec::with_capacity(count);
        for &position in order.iter() {
            let (name, item) = &fields[position as usize];
            let out = if update && item.is_empty() {
                // A cleared field: its empty value is charged as written, and written `null`.
                self.charge_written(cx)?;
                sink.null()?
            } else {
                self.write(cx, item, sink)?
            };
            written.push((&**name, out));
        }
        sink.record(record.type_name.as_deref(), written)
    }

    /// [`Machine::write`] of a record's field: a scalar or a text written in place, as `write`
    /// would (the same charges, in order).
    #[inline(always)]
    fn write_member<S: HostValueSink>(&mut self, cx: Cx, item: &Value, sink: &mut S) -> IrResult<S::Out> {
        match item {
            Value::Int(i) => {
                self.charge_written(cx)?;
                sink.int(*i)
            }
            Value::Bool(b) => {
                self.charge_written(cx)?;
                sink.bool(*b)
            }
            Value::Float(f) => {
                self.charge_written(cx)?;
                sink.float(*f)
            }
            Value::Str(s) => self.write_text(cx, s, sink),
            other => self.write(cx, other, sink),
        }
    }

    /// A string written, with its charge (1 and its text cost) and its units of work; an ASCII
    /// one the evaluation made as such (see [`HostValueSink::ascii_str`]).
    #[inline(always)]
    fn write_text<S: HostValueSink>(&mut self, cx: Cx, text: &Text, sink: &mut S) -> IrResult<S::Out> {
        // A program literal goes to `str`: a sink may keep one string for each.
        self.write_str(cx, text, text.is_ascii(), text.is_shared(), sink)
    }

    /// [`Machine::write_text`] of the bytes `text` (`ascii` when all are ASCII, `shared` for a
    /// program literal): a text value's, or a packed one's.
    #[inline(always)]
    fn write_str<S: HostValueSink>(&mut self, cx: Cx, text: &str, ascii: bool, shared: bool, sink: &mut S) -> IrResult<S::Out> {
        self.charge_text_written(cx, text, ascii)?;
        self.tally(text.len() as u64 / 64);
        if ascii && !shared {
            sink.ascii_str(text)
        } else {
            sink.str(text)
        }
    }

    /// The charge of a text written: 1, plus its text cost under a budget, in one piece (its
    /// UTF-16 length is its byte length when `ascii` says all its bytes are ASCII).
    #[inline(always)]
    fn charge_text_written(&mut self, cx: Cx, text: &str, ascii: bool) -> IrResult<()> {
        // Fewer than 64 bytes cannot hold 64 code units: the common case costs 1.
        if self.budgeted && text.len() >= 64 {
            // An ASCII text's UTF-16 length is its byte length: no scan.
            let cost = if ascii { text.len() as u64 / 64 } else { text_cost(text) };
            return self.charge_written_with(cx, cost);
        }
        self.charge_written(cx)
    }

    /// The charge of 1 (and its unit of work) each value written makes.
    #[inline(always)]
    fn charge_written(&mut self, cx: Cx) -> IrResult<()> {
        if !self.charge_one() {
            self.charge(cx, None, 1)?;
        }
        self.tally(1);
        Ok(())
    }

    /// The charge of a value written whose text costs `extra` beyond its 1, in one piece.
    #[inline(always)]
    fn charge_written_with(&mut self, cx: Cx, extra: u64) -> IrResult<()> {
        if extra == 0 {
            return self.charge_written(cx);
        }
        self.charge(cx, None, extra.saturating_add(1))?;
        self.tally(1);
        Ok(())
    }

    /// The items of a list written for the host (the list's own charge already made).
    fn write_items<S: HostValueSink>(&mut self, cx: Cx, items: &[Value], sink: &mut S) -> IrResult<S::Out> {
        self.write_list(cx, items.len(), |at| match in_place(&items[at]) {
            Some(written) => Listed::InPlace(written),
            None => Listed::Value(&items[at]),
        }, sink)
    }

    /// Packed texts written for the host, as [`Machine::write_items`] writes them as values:
    /// no program literal among them, so each goes to the sink's `ascii_str` when ASCII.
    fn write_texts<S: HostValueSink>(&mut self, cx: Cx, texts: &Texts, sink: &mut S) -> IrResult<S::Out> {
        let all_ascii = texts.is_ascii();
        self.write_list(cx, texts.len(), |at| {
            let text = texts.get(at);
            let ascii = all_ascii || text.is_ascii();
            match text.len() < 64 && ascii {
                true => Listed::InPlace(InPlace::Text(text)),
                false => Listed::Text(text, ascii),
            }
        }, sink)
    }

    /// A list's `len` items written, each as `item` lists it.
    fn write_list<'v, S: HostValueSink>(
        &mut self,
        cx: Cx,
        len: usize,
        item: impl Fn(usize) -> Listed<'v>,
        sink: &mut S,
    ) -> IrResult<S::Out> {
        let mut scalars = true;
        // An integer item, or an ASCII text of fewer than 64 bytes that is no program literal,
        // is written in place: it nests nothing, so the stack check its own call would make is
        // the one this call already made, and its charge is 1 (with its unit of work), as
        // `write` charges it. That charge is counted in `batched` while it would take the fast
        // path (fewer than `room` pending), and taken from the budget before anything else
        // charges: the same charges, at the same points, as one at a time.
        let mut room = self.fast_room();
        let mut batched = 0u64;
        let written = sink.list_of(len, |sink, at| {
            let out = match item(at) {
                Listed::InPlace(written) => {
                    if batched < room {
                        batched += 1;
                    } else {
                        self.take_fast(std::mem::take(&mut batched));
                        if !self.charge_one() {
                            self.charge(cx, None, 1)?;
                        }
                        self.tally(1);
                        room = self.fast_room();
                    }
                    return match written {
                        InPlace::Int(i) => sink.int(i),
                        InPlace::Text(text) => {
                            scalars = false;
                            sink.ascii_str(text)
                        }
                    };
                }
                Listed::Value(value) => {
                    self.take_fast(std::mem::take(&mut batched));
                    scalars &= matches!(value, Value::Bool(_) | Value::Float(_));
                    self.write(cx, value, sink)
                }
                Listed::Text(text, ascii) => {
                    self.take_fast(std::mem::take(&mut batched));
                    scalars = false;
                    self.write_str(cx, text, ascii, false, sink)
                }
            };
            room = self.fast_room();
            out
        });
        self.take_fast(batched);
        self.wrote_scalar_list = scalars;
        written
    }

    /// Writes `item` as a list holding it alone, as [`Machine::write`] writes such a list.
    pub fn write_one_item_list<S: HostValueSink>(&mut self, cx: Cx, item: &Value, sink: &mut S) -> IrResult<S::Out> {
        if !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        self.charge_written(cx)?;
        self.write_items(cx, std::slice::from_ref(item), sink)
    }

    /// Whether a host value may be read at nesting `depth`: under [`MAX_VALUE_NESTING`] levels,
    /// and, checked every 8 levels (the stack's reserve holds as many), with stack the call may
    /// use left (a host thread with a small stack has less than the 256 levels take).
    #[inline]
    fn may_read_at(&self, depth: u32) -> IrResult<()> {
        if depth >= MAX_VALUE_NESTING {
            return Err(limit_error(
                "maxValueNesting",
                MAX_VALUE_NESTING as u64,
                format!("A host value nests more than {MAX_VALUE_NESTING} levels deep."),
            ));
        }
        if depth & 7 == 0 && !self.stack_ok() {
            return Err(self.value_stack_error());
        }
        Ok(())
    }

    /// Reads a host value (no charge). `null` becomes the empty value; nesting is bounded.
    pub fn read_host<S: HostValueSource>(&mut self, value: &S, depth: u32) -> IrResult<Value> {
        self.may_read_at(depth)?;
        self.tally(1);
        let read = value.read()?;
        self.read_host_from(read, depth)
    }

    /// [`Machine::read_host`] of what a value read as (its own tally made).
    fn read_host_from<S: HostValueSource>(&mut self, read: HostRead<'_, S>, depth: u32) -> IrResult<Value> {
        Ok(match read {
            HostRead::Null => Value::empty(),
            HostRead::Bool(b) => Value::Bool(b),
            HostRead::Int(i) => Value::Int(i),
            HostRead::Float(f) => Value::Float(f),
            HostRead::Str(s) => {
                self.tally(s.len() as u64 / 64);
                Value::Str(Text::new(&s))
            }
            HostRead::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in &items {
                    out.push(self.read_host(item, depth + 1)?);
                }
                Value::seq(out)
            }
            HostRead::Record { type_name, fields } => {
                let mut out: Vec<(Name, Value)> = Vec::with_capacity(fields.len());
                for (name, item) in &fields {
                    let value = self.read_host(item, depth + 1)?;
                    out.push((self.prog_name(name), value));
                }
                Value::Record(Record::new_rc(type_name.map(|t| self.prog_name(&t)), out))
            }
        })
    }
}

/// A host record's members matched to a record declaration's fields: at most this many fields
/// (a bit each in a `u64`); a larger declaration is read as [`Machine::read_host`] reads.
const MATCHED_FIELDS: usize = 64;

impl Machine<'_> {
    /// [`Machine::read_host`] of a value the type `ty` of `module` is to check next (a parameter
    /// of the function called). The value read is the same, but that a record that full
    /// normalization against its declared record type would give back exactly as read (no
    /// `$type` naming another, every declared field present and none other, each value already
    /// normal at its field's type) is built once in that declaration's layout (its names, in its
    /// order) and marked as its normal form ([`Record::normal_of`]), so the check that follows
    /// finds it normal and only makes its charges: no record is built twice and no host name
    /// is looked up in the program's table. Where an abstract record or a union is declared,
    /// the same holds of a record whose `$type` (wherever it stands among its members) names the
    /// subtype or case the check would take, in that subtype's or case's layout. Charges,
    /// results and failures are those of `read_host` and the check after it (the program's
    /// shortcuts off, it is `read_host`).
    pub fn read_host_as<S: HostValueSource>(&mut self, value: &S, module: u32, ty: u32) -> IrResult<Value> {
        if !self.prog.shortcuts {
            return self.read_host(value, 0);
        }
        let mut normal = true;
        self.read_typed(value, module, ty, 0, &mut normal)
    }

    /// [`Machine::read_host_as`] at `depth`; `normal` is cleared unless normalizing the value
    /// read against `ty` gives it back unchanged (and a record keeps it: it is not empty).
    fn read_typed<S: HostValueSource>(&mut self, value: &S, module: u32, ty: u32, depth: u32, normal: &mut bool) -> IrResult<Value> {
        self.may_read_at(depth)?;
        let prog = self.prog;
        let types = &prog.modules[module as usize].types;
        let Some(ctype) = types.get(ty as usize) else {
            *normal = false;
            return self.read_host(value, depth);
        };
        self.tally(1);
        // A record where a record (or an optional one) is expected is read member by member.
        let record = match ctype {
            CType::Nominal(_) => Some(ty),
            CType::Seq { item, may_be_many: false, .. } => Some(*item),
            _ => None,
        };
        if let Some(read) = record.and_then(|record| self.read_record(value, module, record, depth, normal)) {
            return read;
        }
        let read = value.read()?;
        // The primitive a value other than `null` and a list is checked against: the type's
        // own, or an optional's item type.
        let prim = match ctype {
            CType::Prim(prim) => Some(prim),
            CType::Seq { item, may_be_many: false, .. } => match types.get(*item as usize) {
                Some(CType::Prim(prim)) => Some(prim),
                _ => None,
            },
            _ => None,
        };
        // Matched in place (not moved into a tuple with the type), each arm returning on its
        // own: a value gathered into one exit, or moved whole after it was written in pieces,
        // is loaded back before it is stored, a stall per value read.
        match read {
            HostRead::Null => {
                *normal &= matches!(ctype, CType::Prim(Prim::Object));
                Ok(Value::empty())
            }
            HostRead::Bool(b) => {
                *normal &= matches!(prim, Some(Prim::Boolean | Prim::Object));
                Ok(Value::Bool(b))
            }
            HostRead::Int(i) => {
                *normal &= matches!(prim, Some(Prim::Int | Prim::Object));
                Ok(Value::Int(i))
            }
            HostRead::Float(f) => {
                *normal &= matches!(prim, Some(Prim::Float64 | Prim::Object));
                Ok(Value::Float(f))
            }
            HostRead::Str(s) => {
                self.tally(s.len() as u64 / 64);
                *normal &= matches!(prim, Some(Prim::String | Prim::Object));
                Ok(Value::Str(Text::new(&s)))
            }
            HostRead::List(items) => match ctype {
                CType::Seq { item, may_be_many: true, .. } => {
                    let mut out = Vec::with_capacity(items.len());
                    *normal &= !items.is_empty();
                    for element in &items {
                        out.push(self.read_typed(element, module, *item, depth + 1, normal)?);
                    }
                    Ok(Value::seq(out))
                }
                _ => {
                    *normal &= matches!(ctype, CType::Prim(Prim::Object));
                    self.read_host_from(HostRead::List(items), depth)
                }
            },
            // Not where a record declaration [`Machine::read_record`] reads is expected (an
            // optional record is normal only where its one value is normal at the item type).
            HostRead::Record { type_name, fields } => {
                *normal &= matches!(ctype, CType::Prim(Prim::Object));
                self.read_host_from(HostRead::Record { type_name, fields }, depth)
            }
        }
    }

    /// A host record read where the type `ty` of `module` is expected (see
    /// [`Machine::read_host_as`]), in one pass over its members: each matched to its declared
    /// field as it comes and read at that field's type. Where `ty` is an abstract record or a
    /// union, the fields are those of the subtype or case its `$type` names ([`Layout`]): found
    /// as the first member, or else by a pass over the members before the one that reads them.
    /// `None` when `ty` is no record declaration, abstract record or union it reads so (the
    /// record is read as any other value) or the value is no record.
    /// From a member no declared field takes (or one taken twice), or a `$type` naming another
    /// type, on, the rest of the record is read [`Machine::read_host`]'s way, after what was
    /// read ([`Machine::read_rest`]: read again, a refusal deep down a chain of such records
    /// would read the levels below once per level above). A record whose layout is not found
    /// (no `$type`, or one naming none this way) is read that way from the start, before
    /// anything is read.
    fn read_record<S: HostValueSource>(&mut self, value: &S, module: u32, ty: u32, depth: u32, normal: &mut bool) -> Option<IrResult<Value>> {
        let prog = self.prog;
        let Some(CType::Nominal(Target::Decl { module: decl_module, decl })) = prog.modules[module as usize].types.get(ty as usize) else {
            return None;
        };
        let (decl_module, decl) = (*decl_module, *decl);
        let declaration = prog.decl(decl_module, decl);
        // The declared fields: a concrete record's own, known now; an abstract record's subtype's
        // or a union's case's, once the `$type` names it.
        let fixed = match &declaration.kind {
            CDeclKind::Record { fields, is_abstract: false, update_target: None, .. } => {
                Some(Layout { module: decl_module, decl, fields, type_name: &declaration.name })
            }
            CDeclKind::Record { is_abstract: true, update_target: None, .. } | CDeclKind::Union { .. } => None,
            _ => return None,
        };
        if fixed.as_ref().is_some_and(|layout| layout.fields.len() > MATCHED_FIELDS) {
            return None;
        }
        let mut layout = fixed;
        // Each member's declared field (positions in the host's order), none twice.
        let mut at = [0u8; MATCHED_FIELDS];
        let mut seen = 0u64;
        let mut read: Vec<(Name, Value)> = Vec::with_capacity(layout.as_ref().map_or(0, |layout| layout.fields.len()));
        let (mut matched, mut typed, mut all_normal) = (true, false, true);
        // The layout was found by a first pass to a `$type` after other members (`late`).
        let (mut late, mut found_first) = (false, false);
        let named = |field: &CField, key: &str| field.name.len() == key.len() && *field.name == *key;
        let visited = loop {
            let visited = value.visit_members(|member| match member {
                Member::TypeName(name) if fixed.is_some() => {
                    matched = name == &*declaration.name;
                    typed = matched;
                    Ok(matched)
                }
                Member::TypeName(_) if found_first => {
                    typed = true;
                    Ok(true)
                }
                Member::TypeName(name) => {
                    // First (a member before it ended the visit), and naming one subtype or
                    // case: its fields are the ones declared.
                    let (named, work) = Layout::named(prog, decl_module, decl, name);
                    self.tally(work);
                    layout = named;
                    matched = layout.is_some();
                    typed = matched;
                    if let Some(layout) = &layout {
                        read.reserve_exact(layout.fields.len());
                    }
                    Ok(matched)
                }
                Member::Field(key, item) => {
                    let Some(Layout { module: field_module, fields: declared, .. }) = layout else {
                        // A member before the `$type`: nothing is read yet.
                        (matched, late) = (false, true);
                        return Ok(false);
                    };
                    let i = read.len();
                    // A host that writes the fields in declaration order finds each at once.
                    let found = match declared.get(i) {
                        Some(field) if named(field, &key) => Some(i),
                        _ => declared.iter().position(|field| named(field, &key)),
                    };
                    let Some(position) = found.filter(|&position| seen & (1 << position) == 0) else {
                        matched = false;
                        return Ok(false);
                    };
                    // `i` is under the number of declared fields: each member read took another.
                    seen |= 1 << position;
                    at[i] = position as u8;
                    let field = &declared[position];
                    let value = self.read_typed(&item, field_module, field.ty, depth + 1, &mut all_normal)?;
                    read.push((Name::clone(&field.name), value));
                    Ok(true)
                }
            })?;
            if !late || found_first {
                break visited;
            }
            // The `$type` comes after other members: found by a pass over the members (each
            // tallied), then the record is read again knowing its layout.
            late = false;
            let mut walked = 0u64;
            let search = value.visit_members(|member| match member {
                Member::TypeName(name) => {
                    let (named, work) = Layout::named(prog, decl_module, decl, name);
                    walked += work;
                    layout = named;
                    Ok(false)
                }
                Member::Field(..) => {
                    walked += 1;
                    Ok(true)
                }
            });
            self.tally(walked);
            match search {
                Some(Ok(())) if layout.is_some() => (matched, found_first) = (true, true),
                _ => break visited,
            }
            if let Some(layout) = &layout {
                read.reserve_exact(layout.fields.len());
            }
        };
        if let Err(error) = visited {
            return Some(Err(error));
        }
        let Some(layout) = layout else {
            *normal = false;
            return Some(value.read().and_then(|read| self.read_host_from(read, depth)));
        };
        if !matched {
            // Stopped at a member no declared field takes (or a `$type` naming another type):
            // the rest read as `read_host` reads it, after the members read.
            *normal = false;
            let taken = read.len() + typed as usize;
            return Some(self.read_rest(value, read, taken, typed.then_some(layout.type_name), depth));
        }
        if !all_normal || read.len() != layout.fields.len() {
            // As `read_host` reads it: the members in the host's order (each name the program's
            // own, the declared field's).
            *normal = false;
            let type_name = typed.then(|| self.prog_name(layout.type_name));
            return Some(Ok(Value::Record(Record::new_rc(type_name, read))));
        }
        let at = &at[..read.len()];
        // Every declared field once (`at` is a permutation): put in declaration order.
        if at.iter().enumerate().any(|(i, &p)| p as usize != i) {
            let mut placed: Vec<(u8, (Name, Value))> = at.iter().copied().zip(read).collect();
            placed.sort_unstable_by_key(|(position, _)| *position);
            read = placed.into_iter().map(|(_, field)| field).collect();
        }
        // Every field exact, and every nested record read so too (it is normal only then):
        // normal all the way down where the declaration has a cost for that (a subtype or a
        // case is not: the declaration expected is not the one it is normal at).
        let deep = fixed.is_some() && declaration.deep_recheck.is_some();
        let (module, decl) = (layout.module, layout.decl);
        Some(Ok(Value::Record(Record::normalized_rc(Name::clone(layout.type_name), read, module, decl, deep))))
    }

    /// The host record `value` as [`Machine::read_host`] reads it, where
    /// [`Machine::read_record`] read its first `taken` members (`read`, each a field; the
    /// `$type` among them when `typed`, named `typed`) before it stopped: the rest are read that
    /// way after them, and the members read are not read again (each passed over is tallied).
    #[cold]
    #[inline(never)]
    fn read_rest<S: HostValueSource>(
        &mut self,
        value: &S,
        mut read: Vec<(Name, Value)>,
        taken: usize,
        typed: Option<&Name>,
        depth: u32,
    ) -> IrResult<Value> {
        let mut type_name = typed.map(|name| self.prog_name(name));
        let mut passed = 0;
        let visited = value.visit_members(|member| {
            if passed < taken {
                passed += 1;
                return Ok(true);
            }
            match member {
                Member::TypeName(name) => type_name = Some(self.prog_name(name)),
                Member::Field(key, item) => {
                    let value = self.read_host(&item, depth + 1)?;
                    read.push((self.prog_name(&key), value));
                }
            }
            Ok(true)
        });
        self.tally(passed as u64);
        match visited {
            Some(Ok(())) => Ok(Value::Record(Record::new_rc(type_name, read))),
            Some(Err(error)) => Err(error),
            // Not a record now: as `read_host` reads it (the visit that stopped found one).
            None => value.read().and_then(|read| self.read_host_from(read, depth)),
        }
    }
}

/// The fields a host record is read in ([`Machine::read_record`]): those of the record
/// declaration `decl` of `module`, or of one case of the union `decl`, and the type name the
/// record read is given.
#[derive(Clone, Copy)]
struct Layout<'p> {
    module: u32,
    decl: u32,
    fields: &'p [CField],
    type_name: &'p Name,
}

impl<'p> Layout<'p> {
    /// The layout of the shape `$type` `name` gives a value checked against the abstract record
    /// or union `decl` of `module`, where checking it finds that shape and reads its fields
    /// (`Machine::normalize_nominal`): a concrete record or non-constant union case extending the
    /// abstract record, the only one of that name, or the union's non-constant case of that
    /// name. `None` for any other (the check then says why), or one of more than
    /// [`MATCHED_FIELDS`] fields. With the work of finding it: the name compared or hashed,
    /// and each shape of it looked at.
    fn named(prog: &'p CompiledProgram, module: u32, decl: u32, name: &str) -> (Option<Layout<'p>>, u64) {
        let mut work = 1 + name.len() as u64 / 64;
        let layout = Self::find(prog, module, decl, name, &mut work);
        (layout.filter(|layout| layout.fields.len() <= MATCHED_FIELDS), work)
    }

    fn find(prog: &'p CompiledProgram, module: u32, decl: u32, name: &str, work: &mut u64) -> Option<Layout<'p>> {
        let declaration = prog.decl(module, decl);
        Some(match &declaration.kind {
            CDeclKind::Union { cases, index, .. } => {
                let case_name = name.strip_prefix(&*declaration.name)?.strip_prefix('.')?;
                let (named, found) = index.find(cases, case_name);
                *work += found;
                let case = named.and_then(|named| cases.get(named.first as usize)).filter(|c| !c.is_constant)?;
                Layout { module, decl, fields: &case.fields, type_name: &case.type_name }
            }
            CDeclKind::Record { is_abstract: true, .. } => {
                let shapes = prog.shapes.get(name)?;
                *work += shapes.len() as u64;
                let shape = prog.subtype_of(shapes, module, decl).ok()?;
                let shape_decl = prog.decl(shape.module, shape.decl);
                match (&shape_decl.kind, shape.case) {
                    (CDeclKind::Record { fields, is_abstract: false, update_target: None, .. }, None) => {
                        Layout { module: shape.module, decl: shape.decl, fields: &fields[..], type_name: &shape_decl.name }
                    }
                    (CDeclKind::Union { cases, .. }, Some(c)) => {
                        let case = cases.get(c as usize)?;
                        Layout { module: shape.module, decl: shape.decl, fields: &case.fields, type_name: &case.type_name }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
}

/// Byte order of two names, decided by their first bytes where they differ (most do) without
/// a call to compare the rest.
#[inline(always)]
fn byte_order(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match a.first().cmp(&b.first()) {
        std::cmp::Ordering::Equal => a.cmp(b),
        other => other,
    }
}

/// An item of a list written for the host ([`Machine::write_list`]).
enum Listed<'v> {
    /// Written in place.
    InPlace(InPlace<'v>),
    Value(&'v Value),
    /// A packed text, and whether it is ASCII.
    Text(&'v str, bool),
}

/// An item [`Machine::write_items`] writes in place.
enum InPlace<'v> {
    Int(i64),
    /// A text `write` would give the sink's `ascii_str` at a charge of 1: ASCII, no program
    /// literal, under 64 bytes.
    Text(&'v str),
}

#[inline(always)]
fn in_place(item: &Value) -> Option<InPlace<'_>> {
    match item {
        Value::Int(i) => Some(InPlace::Int(*i)),
        Value::Str(text) if text.len() < 64 && text.is_ascii() && !text.is_shared() => Some(InPlace::Text(text)),
        _ => None,
    }
}
