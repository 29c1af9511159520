//! The cases of the fuzz targets (`fuzz/` at the repository root), kept here so that the fuzz
//! targets, the regression tests replaying their crashing inputs and the seed replay all run the
//! same code. Each function takes the raw input, panics on a violation, and returns normally when
//! the input is refused or handled correctly.
//!
//! Input formats (little-endian; every read past the end yields zeros, so every input means
//! something):
//!
//! * [`prepare_case`]: the whole input is one image.
//! * [`link_case`]: `flags: u8`, then chunks; a chunk is `length: u32` and that many bytes (a
//!   length past the end takes the rest). Every chunk is an image; the first is the entry.
//! * [`evaluate_case`]: `flags: u8`, one chunk holding the call ([`Call`]), then image chunks as
//!   for linking.
//! * [`assemble_case`]: `flags: u8`, then text chunks: an explain text, its module's source
//!   when flagged, then linked modules' explain texts.
//!
//! A host value in a call is a tag byte (taken modulo 13) and its payload:
//! `0` null, `1` false, `2` true, `3` an `i64`, `4` an `i8` as an int, `5` an `f64` by its bits,
//! `6` a string of `u8` length, `7` a string of `u16` length (strings are read lossily as
//! UTF-8), `8` a list of `u8` count, `9` a record of `u8` count of `(u8-length name, value)`,
//! `10` a record with a `$type` (`u8`-length string) then as `9`, `11` `u16` depth then a value
//! wrapped in that many one-item lists (at most [`MAX_WRAP`]), `12` `u16` count then a value
//! repeated that many times in a list. Decoding stops building once the values weigh
//! [`MAX_VALUES`] (one per value and one per 64 bytes of text; later values are null), so that a
//! repeated long string cannot make a call's input gigabytes long.

use super::check_image;
use crate::error::IrError;
use crate::eval::json::to_json;
use crate::eval::{
    call_function_with, evaluate_function_with, last_call_free_copies, last_call_work, measure_input_size, CallArguments, CompiledProgram, Evaluation,
    HostRecord, HostValue, HostValueBuilder, Limits, Usage,
};
use crate::explain::explain_image;
use crate::image::PreparedModule;
use crate::link::{LinkOptions, Program};
use crate::model::{Constant, Decl, Field, Module, Node, Prop, Type};
use crate::testing::instances::{dispatch_paid, initialize_paid, invocation};
use std::collections::HashMap;
use std::sync::Arc;

/// The operation budget of an evaluation unless the call names a smaller one.
pub const BUDGET: u64 = 10_000;
/// The most one call's arguments weigh: one per value, one per 64 bytes of text.
pub const MAX_VALUES: usize = 8_000;
/// The deepest wrapping tag `11` builds.
pub const MAX_WRAP: usize = 2_000;

/// A cursor over fuzz input that reads zeros past the end.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Up to `n` bytes.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.data.split_at(n.min(self.data.len()));
        self.data = tail;
        head
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let head = self.take(N);
        out[..head.len()].copy_from_slice(head);
        out
    }

    pub fn u8(&mut self) -> u8 {
        self.array::<1>()[0]
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.array())
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.array())
    }

    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }

    /// The next chunk, or `None` at the end.
    pub fn chunk(&mut self) -> Option<&'a [u8]> {
        if self.data.is_empty() {
            return None;
        }
        let length = self.u32() as usize;
        Some(self.take(length))
    }
}

/// Splits `data` into chunks as the formats above lay them out.
pub fn chunks(data: &[u8]) -> Vec<&[u8]> {
    let mut bytes = Bytes::new(data);
    std::iter::from_fn(|| bytes.chunk()).collect()
}

/// Writes `parts` as chunks (what the seed script does in Python).
pub fn write_chunks(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
        out.extend_from_slice(part);
    }
    out
}

/// Whether `code` is one a reference runtime uses: `nx-ir-*`, and (schema 6's standard
/// operations, from evaluation) `nx-math-*` and `color-*`.
pub fn is_reference_code(code: &str) -> bool {
    ["nx-ir-", "nx-math-", "color-"].iter().any(|prefix| code.starts_with(prefix))
}

/// Every error must carry at least one diagnostic, each with a reference-style code.
pub fn assert_coded(error: &IrError, what: &str) {
    assert!(!error.diagnostics.is_empty(), "{what}: refused without a diagnostic: {error:?}");
    for diagnostic in error.diagnostics.iter() {
        assert!(is_reference_code(diagnostic.code), "{what}: refused with an unknown code: {error:?}");
        assert!(!diagnostic.message.is_empty(), "{what}: a diagnostic without a message: {error:?}");
    }
}

/// The prepare target: the reader refuses the input with a coded error, or prepares a module
/// that reads, decodes, re-encodes to an image that prepares and decodes the same, describes its
/// declarations ([`crate::declarations`]) and explains.
pub fn prepare_case(data: &[u8]) {
    match check_image(data) {
        Err(failure) => panic!("{failure}"),
        Ok(None) => {
            let error = PreparedModule::from_slice(data).expect_err("refused once, refused again");
            assert_coded(&error, "prepare");
        }
        Ok(Some(module)) => {
            for index in 0..module.type_count() as u32 {
                assert!(module.decode_type(index).is_some(), "type {index} of a prepared image does not decode");
            }
            for index in 0..module.constant_count() as u32 {
                assert!(module.decode_constant(index).is_some(), "constant {index} does not decode");
            }
            for index in 0..module.declaration_count() as u32 {
                assert!(module.decode_declaration(index).is_some(), "declaration {index} does not decode");
                let name = module.declaration_name(index).expect("a declaration has a name");
                assert!(module.declaration_index(name).is_some(), "declaration {name:?} is not found by name");
                let _ = module.declaration_span(index);
            }
            for slot in 0..module.module_count() {
                assert!(module.module_entry(slot).is_some(), "module-table slot {slot} does not read");
                let _ = module.referenced_names(slot).count();
            }
            assert_eq!(module.declarations().len(), module.declaration_count(), "declarations() left some out");
            if let Err(error) = explain_image(data) {
                panic!("a prepared image does not explain: {error}");
            }
        }
    }
}

/// How the link target's resolver answers.
#[derive(Debug, Clone, Copy)]
struct ResolverMode {
    /// An identity the set does not hold is answered with some module of the set anyway.
    substitute: bool,
    /// An identity the set does not hold is answered with an error (after `substitute`).
    fail: bool,
}

/// The images of `chunks` that prepare; the first must (else `None`).
fn prepare_set(chunks: &[&[u8]]) -> Option<Vec<Arc<PreparedModule>>> {
    let mut modules = Vec::new();
    for (index, chunk) in chunks.iter().enumerate() {
        match PreparedModule::from_slice(chunk) {
            Ok(module) => modules.push(Arc::new(module)),
            Err(error) => {
                assert_coded(&error, "prepare");
                if index == 0 {
                    return None;
                }
            }
        }
    }
    (!modules.is_empty()).then_some(modules)
}

/// Links `set[0]` against the set; checks what a linked program promises.
fn link_set(set: &[Arc<PreparedModule>], options: LinkOptions, mode: ResolverMode) -> Option<Program> {
    let mut by_identity: HashMap<&str, Arc<PreparedModule>> = HashMap::new();
    for module in set {
        by_identity.entry(module.identity()).or_insert_with(|| Arc::clone(module));
    }
    let mut asked = 0usize;
    let mut resolve = |identity: &str| {
        asked += 1;
        if let Some(module) = by_identity.get(identity) {
            return Ok(Some(Arc::clone(module)));
        }
        if mode.substitute {
            return Ok(Some(Arc::clone(&set[(identity.len() + asked) % set.len()])));
        }
        if mode.fail {
            return Err(IrError::new(crate::error::codes::LINK_MISSING_MODULE, format!("no module {identity:?}")));
        }
        Ok(None)
    };
    let program = match Program::link(Arc::clone(&set[0]), &mut resolve, options) {
        Ok(program) => program,
        Err(error) => {
            assert_coded(&error, "link");
            return None;
        }
    };
    assert!(Arc::ptr_eq(program.entry(), &set[0]), "the entry is not the program's first module");
    let modules = program.modules();
    for (index, module) in modules.iter().enumerate() {
        assert_eq!(program.module_index(module.identity()), Some(index), "module {index} is not found by identity");
        assert_eq!(program.resolve_slot(index, 0), Some(index), "slot 0 of module {index} is not itself");
        for slot in 1..module.module_count() {
            let wanted = module.module_entry(slot).expect("a prepared module's table reads");
            let target = program.resolve_slot(index, slot).unwrap_or_else(|| panic!("slot {slot} of module {index} is unresolved"));
            let resolved = &modules[target];
            assert_eq!(resolved.identity(), wanted.identity, "slot {slot} of module {index} resolved to another identity");
            if !options.allow_version_mismatch {
                assert_eq!(resolved.version(), wanted.version, "slot {slot} of module {index} resolved to another version");
            }
            for name in module.referenced_names(slot) {
                assert!(resolved.declaration_index(name).is_some(), "{name:?} through slot {slot} is not declared");
            }
        }
    }
    Some(program)
}

/// The link target: links the first image against the others (and the built-in prelude), then
/// compiles what links.
pub fn link_case(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    let chunks: Vec<&[u8]> = std::iter::from_fn(|| bytes.chunk()).collect();
    let Some(set) = prepare_set(&chunks) else { return };
    let options = LinkOptions { allow_version_mismatch: flags & 1 != 0 };
    let mode = ResolverMode { substitute: flags & 2 != 0, fail: flags & 4 != 0 };
    let Some(program) = link_set(&set, options, mode) else { return };
    if let Err(error) = CompiledProgram::compile(&program) {
        assert_coded(&error, "compile");
    }
}

/// The assemble target: an explain text (read lossily as UTF-8) assembled as schema 5 or 6,
/// with the explain texts of linked modules and, for a text with spans, the module's source.
/// The assembler refuses it with its own code, or builds a model whose image the reader
/// prepares or refuses with a coded error (the text may say what no runtime accepts: a feature
/// it does not know, say); the model's explain text, where it has one, assembles (with the same
/// links and source) to the same image, and an image that prepares has one.
///
/// Input: `flags: u8` (bit 0: schema 5, else 6; bit 1: the second chunk is the source), then
/// chunks: the text, the source when flagged, then linked modules' texts.
pub fn assemble_case(data: &[u8]) {
    use crate::assemble::{assemble_image_with_links, assemble_with_links, AssembleOptions};
    use crate::explain::explain_module;
    use crate::model::kinds;

    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    let text = String::from_utf8_lossy(bytes.chunk().unwrap_or_default()).into_owned();
    let source = (flags & 2 != 0).then(|| String::from_utf8_lossy(bytes.chunk().unwrap_or_default()).into_owned());
    let linked: Vec<String> = std::iter::from_fn(|| bytes.chunk()).map(|chunk| String::from_utf8_lossy(chunk).into_owned()).collect();
    let linked: Vec<&str> = linked.iter().map(String::as_str).collect();
    let schema = if flags & 1 != 0 { kinds::SCHEMA_5 } else { kinds::SCHEMA_6 };
    let options = AssembleOptions { source, version: String::new(), schema };
    let model = match assemble_with_links(&text, &options, &linked) {
        Ok(model) => model,
        Err(error) => {
            assert_coded(&error, "assemble");
            assert!(
                error.diagnostics.iter().all(|d| d.code == crate::error::codes::ASSEMBLE),
                "assemble: refused with another code: {error:?}"
            );
            return;
        }
    };
    let image = crate::writer::encode(&model);
    let prepared = PreparedModule::from_slice(&image);
    if let Err(error) = &prepared {
        assert_coded(error, "prepare an assembled image");
    }
    let explained = match explain_module(&model) {
        Ok(explained) => explained,
        Err(error) => {
            assert!(prepared.is_err(), "an assembled image prepares but does not explain: {error:?}");
            assert_coded(&error, "explain an assembled model");
            return;
        }
    };
    match assemble_image_with_links(&explained, &options, &linked) {
        Ok(again) => assert!(again == image, "the explain text of an assembled image assembles to another image:\n{explained}"),
        Err(error) => panic!("the explain text of an assembled image does not assemble: {error:?}\n{explained}"),
    }
}

/// Decodes host values from fuzz input.
pub struct ValueDecoder<'a, 'b> {
    bytes: &'b mut Bytes<'a>,
    made: usize,
    depth: usize,
}

impl<'a, 'b> ValueDecoder<'a, 'b> {
    pub fn new(bytes: &'b mut Bytes<'a>) -> Self {
        ValueDecoder { bytes, made: 0, depth: 0 }
    }

    fn text(&mut self, long: bool) -> String {
        let length = if long { self.bytes.u16() as usize } else { self.bytes.u8() as usize };
        let text = String::from_utf8_lossy(self.bytes.take(length)).into_owned();
        self.made += text.len() / 64;
        text
    }

    /// One value, nesting at most [`MAX_WRAP`] deep (deeper ones are null).
    pub fn value(&mut self) -> HostValue {
        if self.made >= MAX_VALUES || self.depth >= MAX_WRAP || self.bytes.is_empty() {
            return HostValue::Null;
        }
        self.made += 1;
        self.depth += 1;
        let value = self.one();
        self.depth -= 1;
        value
    }

    fn one(&mut self) -> HostValue {
        match self.bytes.u8() % 13 {
            0 => HostValue::Null,
            1 => HostValue::Bool(false),
            2 => HostValue::Bool(true),
            3 => HostValue::Int(self.bytes.u64() as i64),
            4 => HostValue::Int(i64::from(self.bytes.u8() as i8)),
            5 => HostValue::Float(f64::from_bits(self.bytes.u64())),
            6 => HostValue::Str(self.text(false)),
            7 => HostValue::Str(self.text(true)),
            8 => {
                let count = self.bytes.u8();
                HostValue::List((0..count).map(|_| self.value()).collect())
            }
            tag @ (9 | 10) => {
                let type_name = (tag == 10).then(|| self.text(false));
                let count = self.bytes.u8();
                let fields = (0..count).map(|_| (self.text(false), self.value())).collect();
                HostValue::Record(HostRecord { type_name, fields })
            }
            11 => {
                let depth = (self.bytes.u16() as usize).min(MAX_WRAP - self.depth);
                self.depth += depth;
                let mut value = self.value();
                self.depth -= depth;
                for _ in 0..depth {
                    value = HostValue::List(vec![value]);
                }
                self.made += depth;
                value
            }
            _ => {
                let count = (self.bytes.u16() as usize).min(MAX_VALUES.saturating_sub(self.made));
                let item = self.value();
                let size = weight(&item);
                let count = count.min(MAX_VALUES.saturating_sub(self.made) / size.max(1));
                self.made += count * size;
                HostValue::List(vec![item; count])
            }
        }
    }
}

/// What a value weighs against [`MAX_VALUES`].
pub fn weight(value: &HostValue) -> usize {
    let mut weight = 0;
    let mut stack = vec![value];
    while let Some(next) = stack.pop() {
        weight += 1;
        match next {
            HostValue::Str(text) => weight += text.len() / 64,
            HostValue::List(items) => stack.extend(items),
            HostValue::Record(record) => {
                weight += record.type_name.as_ref().map_or(0, |name| name.len() / 64);
                for (name, item) in &record.fields {
                    weight += name.len() / 64;
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    weight
}

/// A call of the evaluate target, decoded from its call chunk: `entry: u8` (which function
/// entrypoint, or in call mode which module), `decl: u8` (call mode: which declaration),
/// `budget: u16`, `input: u16`, `depth: u8`, `range: u16`, `count: u8`, then `count` arguments,
/// each a `u8`-length name (call mode only; an empty name is the parameter at that position)
/// and a value; in call mode with a fuzzed function value, that value comes first. An empty
/// name in call mode stands for the name of the parameter at its position, when the function
/// value names a function of the program.
///
/// Flags: bit 0 call mode (`call_function`), bit 1 allow version mismatch when linking, bit 2
/// the budget is `budget` (at most [`BUDGET`]) rather than [`BUDGET`], bit 3 no input size
/// limit (else `input`), bit 4 the call depth is `depth`, bit 5 the range length is `range`,
/// bit 6 the function value is fuzzed rather than a record naming the chosen declaration, bit 7
/// (call mode) the arguments go by position, an argument with a non-empty name left out.
#[derive(Debug)]
pub struct Call {
    pub flags: u8,
    pub entry: u8,
    pub decl: u8,
    pub limits: Limits,
    pub function: Option<HostValue>,
    pub args: Vec<(String, HostValue)>,
}

impl Call {
    pub fn decode(flags: u8, data: &[u8]) -> Call {
        let mut bytes = Bytes::new(data);
        let entry = bytes.u8();
        let decl = bytes.u8();
        let budget = bytes.u16();
        let input = bytes.u16();
        let depth = bytes.u8();
        let range = bytes.u16();
        let count = bytes.u8();
        let limits = Limits {
            max_operations: Some(if flags & 4 != 0 { u64::from(budget).min(BUDGET) } else { BUDGET }),
            max_input_size: (flags & 8 == 0).then_some(u64::from(input)),
            max_call_depth: if flags & 16 != 0 { u32::from(depth) } else { Limits::default().max_call_depth },
            max_range_length: if flags & 32 != 0 { u64::from(range) } else { Limits::default().max_range_length },
            ..Limits::default()
        };
        let call_mode = flags & 1 != 0;
        let mut decoder = ValueDecoder::new(&mut bytes);
        let function = (call_mode && flags & 64 != 0).then(|| decoder.value());
        let mut args = Vec::new();
        for _ in 0..count {
            let name = if call_mode { decoder.text(false) } else { String::new() };
            args.push((name, decoder.value()));
        }
        Call { flags, entry, decl, limits, function, args }
    }
}

/// Compares two host values exactly (floats by their bits).
pub fn same_value(a: &HostValue, b: &HostValue) -> bool {
    match (a, b) {
        (HostValue::Float(x), HostValue::Float(y)) => x.to_bits() == y.to_bits(),
        (HostValue::List(x), HostValue::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b)),
        (HostValue::Record(x), HostValue::Record(y)) => {
            x.type_name == y.type_name
                && x.fields.len() == y.fields.len()
                && x.fields.iter().zip(&y.fields).all(|((k, v), (l, w))| k == l && same_value(v, w))
        }
        _ => a == b,
    }
}

fn same_outcome(a: &Result<Evaluation, IrError>, b: &Result<Evaluation, IrError>) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a.usage == b.usage && same_value(&a.value, &b.value),
        (Err(a), Err(b)) => a == b,
        _ => false,
    }
}

/// A decoded evaluate case, linked and compiled: what [`evaluate_case`] and [`work_bound_case`]
/// call.
struct Case {
    call: Call,
    program: Program,
    compiled: CompiledProgram,
}

/// Decodes, prepares, links and compiles an evaluate case (`None` when it never reaches a call;
/// a refusal on the way must be coded).
fn prepared_case(data: &[u8]) -> Option<Case> {
    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    let call = bytes.chunk()?;
    let call = Call::decode(flags, call);
    let chunks: Vec<&[u8]> = std::iter::from_fn(|| bytes.chunk()).collect();

    for (_, arg) in &call.args {
        check_measure(arg, call.limits.max_input_size);
    }

    let set = prepare_set(&chunks)?;
    let options = LinkOptions { allow_version_mismatch: flags & 2 != 0 };
    let program = link_set(&set, options, ResolverMode { substitute: false, fail: false })?;
    let compiled = match CompiledProgram::compile(&program) {
        Ok(compiled) => compiled,
        Err(error) => {
            assert_coded(&error, "compile");
            return None;
        }
    };
    Some(Case { call, program, compiled })
}

impl Case {
    /// The call's host values: the function record (call mode) and the arguments.
    fn function(&self) -> Option<HostValue> {
        (self.call.flags & 1 != 0).then(|| function_value(&self.program, &self.call))
    }

    /// Runs the call once under `limits`: its result and usage (filled on failure too).
    fn run(&self, limits: &Limits) -> (Result<HostValue, IrError>, Usage) {
        let call = &self.call;
        let mut usage = Usage::default();
        let Some(function) = self.function() else {
            let name = picked(&self.program.entry().function_entrypoints(), call.entry).unwrap_or("");
            let args: Vec<Option<&HostValue>> = call.args.iter().map(|(_, value)| Some(value)).collect();
            let result = evaluate_function_with(&self.compiled, name, &args, limits, &mut HostValueBuilder, &mut usage);
            return (result, usage);
        };
        let result = if call.flags & 128 != 0 {
            let args: Vec<Option<&HostValue>> =
                call.args.iter().map(|(name, value)| name.is_empty().then_some(value)).collect();
            call_function_with(&self.compiled, &&function, CallArguments::Positional(&args), limits, &mut HostValueBuilder, &mut usage)
        } else {
            let params = function_params(&self.program, &function);
            let args: Vec<(&str, &HostValue)> = call
                .args
                .iter()
                .enumerate()
                .map(|(at, (name, value))| {
                    let name = match name.as_str() {
                        "" => params.get(at).map_or("", String::as_str),
                        name => name,
                    };
                    (name, value)
                })
                .collect();
            call_function_with(&self.compiled, &&function, CallArguments::Named(&args), limits, &mut HostValueBuilder, &mut usage)
        };
        (result, usage)
    }

    /// The input size of everything the host passes (ir-format §6.2), measured in full.
    fn input_size(&self) -> u64 {
        let measure = |value: &HostValue| measure_input_size(&value, None).unwrap_or(0);
        let args: u64 = self.call.args.iter().map(|(_, value)| measure(value)).sum();
        1 + args + self.function().as_ref().map_or(0, measure)
    }
}

/// An evaluate case's call run once under its limits: its result and the input size of
/// everything the host passes; `None` when the case never reaches a call.
pub fn call_outcome(data: &[u8]) -> Option<(Result<HostValue, IrError>, u64)> {
    let case = prepared_case(data)?;
    let (result, _) = case.run(&case.call.limits);
    Some((result, case.input_size()))
}

/// The evaluate target: links the images as [`link_case`] does (the resolver answers from the
/// set only), compiles, and calls a function with the decoded arguments under the decoded
/// limits, twice: both calls must give the same outcome, a refusal must be coded, and a result
/// must have used no more than the budget.
pub fn evaluate_case(data: &[u8]) {
    let Some(case) = prepared_case(data) else { return };
    let run = || -> Result<Evaluation, IrError> {
        let (result, usage) = case.run(&case.call.limits);
        result.map(|value| Evaluation { value, usage })
    };
    let first = run();
    let second = run();
    assert!(same_outcome(&first, &second), "two runs of one call differ:\n{first:?}\n{second:?}");
    match &first {
        Ok(evaluation) => {
            let used = evaluation.usage.operations.expect("a budget was set, so operations are reported");
            assert!(used <= case.call.limits.max_operations.unwrap_or(u64::MAX), "used {used} of {:?}", case.call.limits);
            let _ = to_json(&evaluation.value);
        }
        Err(error) => assert_coded(error, "evaluate"),
    }
}

/// Work units one evaluation may do per operation charged and per unit of input size: the one
/// constant of [`work_bound_case`] (and of the property tests over generated programs).
pub const WORK_PER_UNIT: u64 = 64;

/// What a call did and was paid: its work units, the operations charged, its input size, and
/// the units of copies no charge pays for (`eval::work`; the memory ceiling bounds those).
#[derive(Debug, Clone, Copy)]
pub struct Paid {
    pub work: u64,
    pub operations: u64,
    pub input: u64,
    pub free_copies: u64,
}

impl Paid {
    /// What the work is held against: operations + input size + free copies + 1.
    pub fn units(&self) -> u64 {
        self.operations.saturating_add(self.input).saturating_add(self.free_copies).saturating_add(1)
    }
}

/// The work the evaluator did for a call, against what it was paid: at most [`WORK_PER_UNIT`]
/// × (operations charged + input size + free copies + 1), whatever the call's outcome.
pub fn work_bound(paid: Paid) -> Result<(), String> {
    let bound = WORK_PER_UNIT.saturating_mul(paid.units());
    if paid.work <= bound {
        Ok(())
    } else {
        Err(format!("work over {WORK_PER_UNIT} × (operations + input + free copies + 1) = {bound}: {paid:?}"))
    }
}

/// An evaluate case run once under its budget (with no input limit: the input is measured here
/// in full): what it did and was paid; `None` when the case never reaches a call.
pub fn work_of_case(data: &[u8]) -> Option<Paid> {
    let case = prepared_case(data)?;
    let limits = Limits { max_input_size: None, ..case.call.limits.clone() };
    let (_, usage) = case.run(&limits);
    let (work, free_copies) = (last_call_work(), last_call_free_copies());
    Some(Paid { work, operations: usage.operations.unwrap_or(0), input: case.input_size(), free_copies })
}

/// A component call of an evaluate case ([`component_work_of_case`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentCall {
    /// The entry's component, started from the call's props.
    Initialize,
    /// A component an output renders, started from the props it renders it with, under the
    /// instance that rendered it (whose handlers those props may name).
    Child,
    Dispatch,
}

/// The component calls of an evaluate case whose entry declares components: the one the call's
/// entry byte picks, initialized with the call's named arguments as props, then dispatched twice,
/// each time every handler of its latest output (at most four, each twice) with an action record
/// of the type the handler names (at times with fields made from their declared types); after
/// each output, the first two components with a body that
/// it renders initialized as its children. All under the call's budget, with no input limit.
/// What each call did and was paid, a dispatch's instance and a child's parent counted as its
/// input ([`crate::testing::instances::initialize_paid`], [`crate::testing::instances::dispatch_paid`]).
pub fn component_work_of_case(data: &[u8]) -> Vec<(ComponentCall, Paid)> {
    let Some(case) = prepared_case(data) else { return Vec::new() };
    let names = case.program.entry().component_entrypoints();
    let Some(name) = picked(&names, case.call.entry) else { return Vec::new() };
    let limits = Limits { max_input_size: None, ..case.call.limits.clone() };
    let props: Vec<(&str, &HostValue)> =
        case.call.args.iter().filter(|(name, _)| !name.is_empty()).map(|(name, value)| (name.as_str(), value)).collect();
    let (started, initialized) = initialize_paid(&case.compiled, name, &props, None, &limits);
    let mut paid = vec![(ComponentCall::Initialize, initialized)];
    let Ok(started) = started else { return paid };
    let (mut output, mut instance) = (started.output, started.instance);
    // The components a child can be: those with a body (the host renders the others).
    let entry = case.program.entry();
    let has_body = |name: &&str| {
        let decl = entry.declaration_index(name).and_then(|index| entry.decode_declaration(index));
        matches!(decl, Some(Decl::Component { body: Some(_), .. }))
    };
    let bodied: Vec<&str> = names.iter().copied().filter(has_body).collect();
    let mut actions = ActionRecords::new(&case.program, data);
    for round in 0..=2 {
        for (child, props) in rendered_components(&output, &bodied, 2) {
            let props: Vec<(&str, &HostValue)> = props.iter().map(|(name, value)| (name.as_str(), value)).collect();
            let (_, cost) = initialize_paid(&case.compiled, child, &props, Some(&instance), &limits);
            paid.push((ComponentCall::Child, cost));
        }
        let entries = handler_invocations(&output, 4, &mut actions);
        if entries.is_empty() || round == 2 {
            break;
        }
        let batch: Vec<&HostValue> = entries.iter().chain(entries.iter()).collect();
        let (result, cost) = dispatch_paid(&case.compiled, &instance, &batch, &limits);
        paid.push((ComponentCall::Dispatch, cost));
        let Ok((done, _)) = result else { break };
        (output, instance) = (done.output, done.instance);
    }
    paid
}

/// The records of an output, depth first in order: `visit` says whether to walk a record's
/// fields too (`Some(true)`), pass them by (`Some(false)`) or end the walk (`None`).
fn walk_records<'o>(output: &'o HostValue, mut visit: impl FnMut(&'o HostRecord) -> Option<bool>) {
    let mut pending = vec![output];
    while let Some(value) = pending.pop() {
        match value {
            HostValue::List(items) => pending.extend(items.iter().rev()),
            HostValue::Record(record) => match visit(record) {
                Some(true) => pending.extend(record.fields.iter().rev().map(|(_, field)| field)),
                Some(false) => {}
                None => return,
            },
            _ => {}
        }
    }
}

/// The first `most` records of an output whose type is one of the components `names`, each with
/// its fields (the props it was rendered with).
fn rendered_components<'o, 'n>(output: &'o HostValue, names: &[&'n str], most: usize) -> Vec<(&'n str, &'o [(String, HostValue)])> {
    let mut found = Vec::new();
    walk_records(output, |record| {
        if let Some(&name) = record.type_name.as_deref().and_then(|type_name| names.iter().find(|name| **name == type_name)) {
            found.push((name, record.fields.as_slice()));
        }
        (found.len() < most).then_some(true)
    });
    found
}

/// The action records a case's dispatches send: for an action whose record declares fields, half
/// the time one made from their types ([`crate::testing::typed_calls::TypedValues`]), else the
/// bare record; the choices from a generator seeded by the case's bytes, so a case always sends
/// the same.
struct ActionRecords<'p> {
    values: crate::testing::typed_calls::TypedValues<'p>,
    rng: Rng,
}

impl<'p> ActionRecords<'p> {
    fn new(program: &'p Program, data: &[u8]) -> Self {
        let seed = crate::eval::image_hash(data);
        ActionRecords { values: crate::testing::typed_calls::TypedValues::new(program), rng: Rng(seed | 1) }
    }

    /// An action record of the record declaration named `action` (the first module declaring it
    /// with fields).
    fn record(&mut self, action: &str) -> HostValue {
        let typed = self.values.declares_fields(action) && self.rng.below(2) == 0;
        typed
            .then(|| self.values.record_named(&mut self.rng, action))
            .flatten()
            .unwrap_or_else(|| HostValue::Record(HostRecord::new(Some(action))))
    }
}

/// Invocations of the first `most` handlers (`ActionHandler` records) of a rendered output, each
/// with an action record of the type it names ([`ActionRecords`]).
fn handler_invocations(output: &HostValue, most: usize, actions: &mut ActionRecords<'_>) -> Vec<HostValue> {
    let mut found = Vec::new();
    walk_records(output, |record| {
        if record.type_name.as_deref() != Some("ActionHandler") {
            return Some(true);
        }
        if let (Some(HostValue::Str(token)), Some(HostValue::Str(action))) = (record.get("token"), record.get("action")) {
            found.push(invocation(token, &actions.record(action)));
        }
        (found.len() < most).then_some(false)
    });
    found
}

/// Every call of an evaluate case, the function's ([`work_of_case`]) and the components'
/// ([`component_work_of_case`]): what each did and was paid.
pub fn work_of_calls(data: &[u8]) -> Vec<Paid> {
    let mut paid: Vec<Paid> = work_of_case(data).into_iter().collect();
    paid.extend(component_work_of_case(data).into_iter().map(|(_, paid)| paid));
    paid
}

/// The work-bound target: an evaluate case run once under its budget, and its entry's
/// components initialized and dispatched under it, with the children their outputs render
/// ([`work_of_calls`]); its only assertion is
/// [`work_bound`] (the work counter against the operations charged, the input size and the free
/// copies) for each call.
pub fn work_bound_case(data: &[u8]) {
    for paid in work_of_calls(data) {
        if let Err(message) = work_bound(paid) {
            panic!("{message}");
        }
    }
}

/// The parameter names of the function a `Function` record names, if it names one.
fn function_params(program: &Program, function: &HostValue) -> Vec<String> {
    let Some((module, params)) = named_function(program, function) else { return Vec::new() };
    let module = &program.modules()[module];
    params.iter().map(|p| module.string(p.name).unwrap_or("").to_string()).collect()
}

/// The module index and parameters of the function a `Function` record names, when the
/// program declares it.
fn named_function(program: &Program, function: &HostValue) -> Option<(usize, Vec<Field>)> {
    let HostValue::Record(record) = function else { return None };
    let (Some(HostValue::Str(module)), Some(HostValue::Str(name))) = (record.get("module"), record.get("name")) else {
        return None;
    };
    let index = program.module_index(module)?;
    let found = &program.modules()[index];
    match found.decode_declaration(found.declaration_index(name)?)? {
        Decl::Function { params, .. } => Some((index, params)),
        _ => None,
    }
}

/// The name of `names` a call's entry byte picks (its entrypoint, or the entry's component).
fn picked<'n>(names: &[&'n str], entry: u8) -> Option<&'n str> {
    names.get(usize::from(entry) % names.len().max(1)).copied()
}

/// The function value a call-mode case calls: its fuzzed one, or a `Function` record naming the
/// declaration its entry and declaration bytes pick (module, then declaration, by place).
fn function_value(program: &Program, call: &Call) -> HostValue {
    call.function.clone().unwrap_or_else(|| {
        let modules = program.modules();
        let module = &modules[usize::from(call.entry) % modules.len()];
        let decl = u32::from(call.decl) % (module.declaration_count() as u32).max(1);
        HostValue::Record(
            HostRecord::new(Some("Function"))
                .with("module", HostValue::str(module.identity()))
                .with("name", HostValue::str(module.declaration_name(decl).unwrap_or(""))),
        )
    })
}

/// Measuring with a limit gives the exact size when it is within the limit, else some size
/// above the limit.
fn check_measure(value: &HostValue, limit: Option<u64>) {
    let exact = measure_input_size(&value, None).expect("a HostValue always measures");
    let Some(limit) = limit else { return };
    let bounded = measure_input_size(&value, Some(limit)).expect("a HostValue always measures");
    if exact <= limit {
        assert_eq!(bounded, exact, "measuring under the limit {limit} changed the size");
    } else {
        assert!(bounded > limit, "the size {exact} measured as {bounded} under the limit {limit}");
    }
}

// ---- the evaluate target's structured mutation ------------------------------------------------

/// xorshift64*: the structured mutation's choices, from libFuzzer's seed (and the generated
/// calls of the tests that drive the fuzz cases).
pub struct Rng(pub u64);

impl Rng {
    /// The next number (an endless generator, not an `Iterator`: it never ends).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `n` bytes, one from each next number.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// One of `items` (which must not be empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The node-index operands of a node.
fn node_operands(node: &mut Node) -> Vec<&mut u32> {
    fn props(props: &mut [Prop]) -> impl Iterator<Item = &mut u32> {
        props.iter_mut().map(|p| &mut p.value)
    }
    match node {
        Node::Bool { .. }
        | Node::String { .. }
        | Node::Number { .. }
        | Node::Slot { .. }
        | Node::Reference(_)
        | Node::Interval { .. } => Vec::new(),
        Node::Check { operand, .. } => vec![operand],
        Node::StandardMath { args, .. } | Node::StandardColor { args, .. } => args.iter_mut().collect(),
        Node::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        Node::Coalesce { left, right } => vec![left, right],
        Node::Unary { operand, .. } | Node::Text { operand, .. } | Node::Exists { operand } => vec![operand],
        Node::Member { base, .. } | Node::OptionalMember { base, .. } => vec![base],
        Node::ActionHandler { body, .. } => vec![body],
        Node::Call { callee, args } => std::iter::once(callee).chain(args.iter_mut().flatten()).collect(),
        Node::Intrinsic { args, .. } => args.iter_mut().collect(),
        Node::Array { items } => items.iter_mut().collect(),
        Node::If { cond, then, otherwise } => [cond, then].into_iter().chain(otherwise.iter_mut()).collect(),
        Node::IfIs { scrutinee, arms, otherwise } => std::iter::once(scrutinee)
            .chain(arms.iter_mut().map(|arm| &mut arm.body))
            .chain(otherwise.iter_mut())
            .collect(),
        Node::For(l) | Node::ForRange(l) => vec![&mut l.iterable, &mut l.body],
        Node::Record { props: p, content, .. }
        | Node::UnionCase { props: p, content, .. }
        | Node::Element { props: p, content, .. }
        | Node::Component { props: p, content, .. } => props(p).chain(content.iter_mut()).collect(),
        Node::NamedCall { callee, args } => std::iter::once(callee).chain(props(args)).collect(),
    }
}

/// Removes or repeats one item of a list.
fn edit_list<T: Clone>(rng: &mut Rng, items: &mut Vec<T>) {
    if items.is_empty() {
        return;
    }
    let at = rng.below(items.len());
    if rng.below(2) == 0 {
        items.remove(at);
    } else {
        let item = items[at].clone();
        items.insert(rng.below(items.len() + 1), item);
    }
}

/// Edits one variable-length part of a node: arguments, items, properties, content, arms.
fn edit_node_lists(rng: &mut Rng, node: &mut Node) {
    match node {
        Node::Call { args, .. } => {
            if !args.is_empty() && rng.below(3) == 0 {
                let at = rng.below(args.len());
                args[at] = None;
            } else {
                edit_list(rng, args);
            }
        }
        Node::Intrinsic { args, order, .. } => {
            if rng.below(2) == 0 {
                edit_list(rng, args)
            } else {
                edit_list(rng, order)
            }
        }
        Node::Array { items } => edit_list(rng, items),
        Node::IfIs { arms, .. } => edit_list(rng, arms),
        Node::NamedCall { args, .. } => edit_list(rng, args),
        Node::Record { props, content, .. }
        | Node::UnionCase { props, content, .. }
        | Node::Element { props, content, .. }
        | Node::Component { props, content, .. } => {
            if rng.below(2) == 0 {
                edit_list(rng, props)
            } else {
                edit_list(rng, content)
            }
        }
        _ => {}
    }
}

/// Sets one operand that is not a node index: an operator, a slot, a string or constant index,
/// a flag.
fn edit_node_scalar(rng: &mut Rng, node: &mut Node, strings: usize, constants: usize) {
    match node {
        Node::Bool { value } => *value = rng.pick(&[0, 1, 2, u32::MAX]),
        Node::String { value } => *value = rng.below(strings) as u32,
        Node::Number { constant } => *constant = rng.below(constants) as u32,
        Node::Slot { slot, .. } => *slot = slot.wrapping_add(rng.pick(&[1, u32::MAX, 2, 100])),
        Node::Binary { op, .. } => *op = rng.below(21) as u32,
        Node::Unary { op, .. } => *op = rng.below(3) as u32,
        Node::Intrinsic { op, .. } => *op = rng.below(5) as u32,
        Node::Text { type_name, .. } => *type_name = rng.below(strings) as u32,
        Node::Member { member, .. } | Node::OptionalMember { member, .. } => *member = rng.below(strings) as u32,
        Node::For(l) | Node::ForRange(l) => match rng.below(3) {
            0 => l.item_slot = l.item_slot.wrapping_add(rng.pick(&[1, u32::MAX])),
            1 => l.index_slot = if l.index_slot.is_some() { None } else { Some(l.item_slot.wrapping_add(1)) },
            _ => std::mem::swap(&mut l.iterable, &mut l.body),
        },
        Node::If { cond, then, otherwise } => match rng.below(2) {
            0 => std::mem::swap(cond, then),
            _ => *otherwise = if otherwise.is_some() { None } else { Some(*then) },
        },
        Node::UnionCase { case, .. } => *case = case.wrapping_add(rng.pick(&[1, u32::MAX])),
        _ => {}
    }
}

/// Changes one constant to a value the evaluator must handle at its edges.
fn edit_constant(rng: &mut Rng, constant: &mut Constant, strings: usize) {
    const INTS: [i64; 10] = [0, 1, -1, 2, i64::MIN, i64::MAX, 9_007_199_254_740_993, -9_007_199_254_740_993, 1 << 32, 1_000_000];
    const FLOATS: [f64; 9] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.5, 1e308, 9_007_199_254_740_992.0, 5e-324, -1.5];
    *constant = match rng.below(4) {
        0 => Constant::Int(rng.pick(&INTS)),
        1 => Constant::Float(rng.pick(&FLOATS)),
        2 => Constant::BigInt { digits: rng.below(strings) as u32 },
        _ => match *constant {
            Constant::Int(v) => Constant::Int(v.wrapping_add(rng.pick(&[1, -1, 1000]))),
            Constant::Float(v) => Constant::Float(-v),
            other => other,
        },
    };
}

/// Changes one declaration: a function's body, result or parameters, a value's initializer, a
/// field's type, default or flags.
fn edit_declaration(rng: &mut Rng, decl: &mut Decl, nodes: usize, types: usize) {
    let node = |rng: &mut Rng| rng.below(nodes) as u32;
    let edit_field = |rng: &mut Rng, fields: &mut Vec<Field>| {
        if fields.is_empty() {
            return;
        }
        if rng.below(4) == 0 {
            return edit_list(rng, fields);
        }
        let at = rng.below(fields.len());
        let field = &mut fields[at];
        match rng.below(3) {
            0 => field.ty = rng.below(types) as u32,
            1 => field.default = if field.default.is_some() && rng.below(2) == 0 { None } else { Some(node(rng)) },
            _ => field.flags ^= 1 << rng.below(2),
        }
    };
    match decl {
        Decl::Function { params, body, result, result_flags, .. } => match rng.below(4) {
            0 => *body = node(rng),
            1 => *result = if rng.below(3) == 0 { None } else { Some(rng.below(types) as u32) },
            2 => *result_flags ^= 1,
            _ => edit_field(rng, params),
        },
        Decl::Value { init, ty, .. } => {
            if rng.below(2) == 0 {
                *init = node(rng)
            } else {
                *ty = ty.map_or(Some(rng.below(types) as u32), |_| None)
            }
        }
        Decl::Record { fields, .. } => edit_field(rng, fields),
        Decl::Component { props, state, .. } => {
            if rng.below(2) == 0 {
                edit_field(rng, props)
            } else {
                edit_field(rng, state)
            }
        }
        Decl::Union { cases, .. } => {
            let at = rng.below(cases.len());
            if let Some(case) = cases.get_mut(at) {
                if rng.below(3) == 0 {
                    case.is_constant ^= 1;
                } else {
                    edit_field(rng, &mut case.fields);
                }
            }
        }
        Decl::TypeAlias { .. } => {}
    }
}

/// One change to a module's model.
fn mutate_model(rng: &mut Rng, model: &mut Module) {
    let (strings, constants, types, nodes) =
        (model.strings.len(), model.constants.len(), model.types.len(), model.nodes.len());
    match rng.below(8) {
        // Point a node operand at another (earlier) node.
        0 | 1 if nodes > 1 => {
            let at = 1 + rng.below(nodes - 1);
            let target = rng.below(at) as u32;
            let mut operands = node_operands(&mut model.nodes[at]);
            if !operands.is_empty() {
                let which = rng.below(operands.len());
                *operands[which] = target;
            }
        }
        // Copy a node over a later one (its operands stay earlier).
        2 if nodes > 1 => {
            let at = 1 + rng.below(nodes - 1);
            let from = rng.below(at);
            model.nodes[at] = model.nodes[from].clone();
        }
        // A new node over earlier ones, made a function's body or a value's initializer.
        3 if nodes > 0 => {
            let (a, b) = (rng.below(nodes) as u32, rng.below(nodes) as u32);
            let node = match rng.below(6) {
                0 => Node::Binary { op: rng.below(20) as u32, lhs: a, rhs: b },
                1 => Node::Array { items: vec![a, b, a] },
                2 => Node::Coalesce { left: a, right: b },
                3 => Node::If { cond: a, then: b, otherwise: Some(a) },
                4 => Node::Call { callee: a, args: vec![Some(b), None] },
                _ => Node::Unary { op: rng.below(2) as u32, operand: a },
            };
            model.nodes.push(node);
            let new = nodes as u32;
            let at = rng.below(model.declarations.len().max(1));
            match model.declarations.get_mut(at) {
                Some(Decl::Function { body, .. }) => *body = new,
                Some(Decl::Value { init, .. }) => *init = new,
                _ => {}
            }
        }
        4 if nodes > 0 => {
            let at = rng.below(nodes);
            edit_node_lists(rng, &mut model.nodes[at]);
        }
        5 if nodes > 0 => {
            let at = rng.below(nodes);
            edit_node_scalar(rng, &mut model.nodes[at], strings, constants);
        }
        6 if constants > 0 => {
            let at = rng.below(constants);
            edit_constant(rng, &mut model.constants[at], strings);
        }
        _ if !model.declarations.is_empty() => {
            let at = rng.below(model.declarations.len());
            edit_declaration(rng, &mut model.declarations[at], nodes, types);
        }
        _ => {}
    }
    if let Some(debug) = &mut model.debug {
        debug.node_spans.resize(model.nodes.len(), None);
    }
}

/// Gives every node and declaration a span of its own over a blank source (node `i` covers
/// byte `i`, the declarations the bytes after the nodes'), so that which node a diagnostic names
/// shows in its span: assembled images carry no node spans.
fn spread_spans(model: &mut Module) {
    let nodes = model.nodes.len() as u32;
    let declarations = model.declarations.len() as u32;
    model.debug = Some(crate::model::Debug {
        node_spans: (0..nodes).map(|i| Some((i, i + 1))).collect(),
        declaration_spans: (0..declarations).map(|i| Some((nodes + i, nodes + i + 1))).collect(),
        source: " ".repeat((nodes + declarations) as usize),
    });
}

/// The structured half of a cargo-fuzz mutator over evaluate cases: for an even `seed`,
/// [`mutate_evaluate_case`] of `data[..size]` written back in place when it fits `max_size`,
/// answering its length; `None` (the target then lets libFuzzer mutate) otherwise. Shared by the
/// `evaluate`, `work_bound` and differential targets.
pub fn mutate_evaluate_case_in_place(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> Option<usize> {
    if !seed.is_multiple_of(2) {
        return None;
    }
    let seed = u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mutated = mutate_evaluate_case(data.get(..size)?, seed)?;
    let target = data.get_mut(..mutated.len()).filter(|_| mutated.len() <= max_size)?;
    target.copy_from_slice(&mutated);
    Some(mutated.len())
}

/// The function an evaluate case's call names, when it names one the program declares: its
/// module's index and its parameters.
fn called_function(program: &Program, call: &Call) -> Option<(usize, Vec<Field>)> {
    if call.flags & 1 != 0 {
        return named_function(program, &function_value(program, call));
    }
    let entry = program.entry();
    let name = picked(&entry.function_entrypoints(), call.entry)?;
    match entry.decode_declaration(entry.declaration_index(name)?)? {
        Decl::Function { params, .. } => Some((program.module_index(entry.identity())?, params)),
        _ => None,
    }
}

/// The component of the entry that an evaluate case's component calls start
/// ([`component_work_of_case`]), when the entry declares one: its module's index and its props.
fn entry_component(program: &Program, call: &Call) -> Option<(usize, Vec<Field>)> {
    let entry = program.entry();
    let name = picked(&entry.component_entrypoints(), call.entry)?;
    match entry.decode_declaration(entry.declaration_index(name)?)? {
        Decl::Component { props, .. } => Some((program.module_index(entry.identity())?, props)),
        _ => None,
    }
}

/// The functions a call of this mode can name by its entry and declaration bytes whose
/// parameters hold a record, union, list or function: for an entrypoint call, (its place among
/// the entry's function entrypoints, 0); in call mode, (module index, declaration index).
fn structured_functions(program: &Program, call_mode: bool) -> Vec<(u8, u8)> {
    let structured = |module: usize, decl: u32| {
        let found = &program.modules()[module];
        let Some(Decl::Function { params, .. }) = found.decode_declaration(decl) else { return false };
        params.iter().any(|param| !matches!(found.decode_type(param.ty), Some(Type::Primitive { .. } | Type::Constrained { .. })))
    };
    if !call_mode {
        let entry = program.entry();
        let Some(module) = program.module_index(entry.identity()) else { return Vec::new() };
        let names = entry.function_entrypoints();
        return (0..names.len().min(256))
            .filter(|&at| entry.declaration_index(names[at]).is_some_and(|decl| structured(module, decl)))
            .map(|at| (at as u8, 0))
            .collect();
    }
    let mut found = Vec::new();
    for (module, image) in program.modules().iter().enumerate().take(256) {
        for decl in 0..image.declaration_count().min(256) as u32 {
            if structured(module, decl) {
                found.push((module as u8, decl as u8));
            }
        }
    }
    found
}

/// The structured mutation's other kind: the call's arguments made again from the declared
/// types of the function it calls ([`crate::testing::typed_calls`]), one time in eight one fewer
/// or one more, and half the time with no input size limit; the call's mode, function value and
/// other limits kept. Half the time a call that names its function by its entry and declaration
/// bytes is pointed at a function whose parameters hold a record, union, list or function, when
/// the program has one. In call mode, one time in four, the arguments are instead the named
/// props of the entry's component that the case's component calls start. `None` when the case
/// does not link or its call names no function.
pub fn retype_call(data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    use crate::testing::typed_calls::{encode_text, encode_value, TypedValues};
    let mut bytes = Bytes::new(data);
    let mut flags = bytes.u8();
    let call_chunk = bytes.chunk()?;
    let mut call = Call::decode(flags, call_chunk);
    let parts: Vec<&[u8]> = std::iter::from_fn(|| bytes.chunk()).collect();
    let set = prepare_set(&parts)?;
    let options = LinkOptions { allow_version_mismatch: flags & 2 != 0 };
    let program = link_set(&set, options, ResolverMode { substitute: false, fail: false })?;
    let call_mode = flags & 1 != 0;
    if !(call_mode && flags & 64 != 0) && rng.below(2) == 0 {
        let candidates = structured_functions(&program, call_mode);
        if !candidates.is_empty() {
            (call.entry, call.decl) = candidates[rng.below(candidates.len())];
        }
    }
    let mut values = TypedValues::new(&program);
    // In call mode, one time in four: the props of the component the entry's component calls
    // start ([`component_work_of_case`]), as named arguments.
    let component = (call_mode && rng.below(4) == 0).then(|| entry_component(&program, &call)).flatten();
    let mut args: Vec<(String, HostValue)> = match component {
        Some((module, props)) => match values.record(rng, module, None, &props, 0) {
            HostValue::Record(record) => record.fields,
            _ => Vec::new(),
        },
        None => {
            let (module, params) = called_function(&program, &call)?;
            let mut args = values.arguments(rng, module, &params);
            match rng.below(16) {
                0 => {
                    args.pop();
                }
                1 => args.push(HostValue::Null),
                _ => {}
            }
            args.into_iter().map(|arg| (String::new(), arg)).collect()
        }
    };
    if rng.below(2) == 0 {
        flags |= 8;
    }
    // The call's header (entry, declaration, limits) as it was, then the arguments.
    let mut chunk = call_chunk.get(..9).map_or_else(|| call_chunk.to_vec(), <[u8]>::to_vec);
    chunk.resize(9, 0);
    (chunk[0], chunk[1]) = (call.entry, call.decl);
    args.truncate(usize::from(u8::MAX));
    chunk.push(args.len() as u8);
    if call_mode && flags & 64 != 0 {
        encode_value(call.function.as_ref().unwrap_or(&HostValue::Null), &mut chunk);
    }
    for (name, arg) in &args {
        if call_mode {
            encode_text(name, false, &mut chunk);
        }
        encode_value(arg, &mut chunk);
    }
    let mut out = vec![flags];
    out.extend(write_chunks(&[&chunk]));
    out.extend(write_chunks(&parts));
    Some(out)
}

/// The evaluate target's structured mutation: one image of the input decoded, one to three
/// changes made to its model (a node operand pointed at another node, a node copied or added, an
/// argument, item or property dropped or repeated, an operator, slot or constant changed, a
/// declaration's body, result, parameter type, default or flags changed), one time in eight a
/// span for every node and declaration, and encoded again, so that mutated images mostly still
/// prepare and reach the evaluator. One time in four it makes the call's arguments again
/// instead, from the declared types of the function it calls or of another ([`retype_call`]).
/// `None` when no image of the input prepares.
pub fn mutate_evaluate_case(data: &[u8], seed: u64) -> Option<Vec<u8>> {
    let mut rng = Rng(seed | 1);
    if rng.below(4) == 0 {
        if let Some(retyped) = retype_call(data, &mut rng) {
            return Some(retyped);
        }
    }
    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    let parts: Vec<&[u8]> = std::iter::from_fn(|| bytes.chunk()).collect();
    let images: Vec<usize> = (1..parts.len()).filter(|&i| PreparedModule::from_slice(parts[i]).is_ok()).collect();
    if images.is_empty() {
        return None;
    }
    let chosen = images[rng.below(images.len())];
    let mut model = PreparedModule::from_slice(parts[chosen]).ok()?.to_model();
    for _ in 0..=rng.below(3) {
        mutate_model(&mut rng, &mut model);
    }
    if rng.below(8) == 0 {
        spread_spans(&mut model);
    }
    let image = crate::writer::encode(&model);
    let mut parts: Vec<&[u8]> = parts;
    parts[chosen] = &image;
    let mut out = vec![flags];
    out.extend(write_chunks(&parts));
    Some(out)
}
