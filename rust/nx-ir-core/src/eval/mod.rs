//! The metered evaluator of NX IR schemas 5 and 6 (ir-format §4–§7, schema-6.md), with the
//! operation counts, codes and diagnostics of the reference runtimes (`nx-ir-runtime` 0.7.0 for
//! schema 5, 0.10.0 for schema 6). What schema 6 adds is decided when a program is compiled, so a
//! schema 5 program runs exactly the code it ran before: constrained types ([`interval`],
//! [`constraints`]), `check` nodes and interval patterns, `standardMath` and `standardColor`
//! ([`standard`] over [`stdlib`]), property spreads (`Machine::spread_properties`) and the props
//! of a value at a component-typed site ([`components`]).
//!
//! A linked program is compiled once into a [`CompiledProgram`] (node arena with resolved
//! references, decoded constants, interned names, typed declarations); each call then runs one
//! [`Machine`](machine::Machine) over it under [`Limits`], charging the six charges of §6.1 in
//! the reference order, and writes its result through a [`HostValueSink`].
//!
//! Choices where the TypeScript and Rust reference runtimes disagree (ir-format §9) follow the
//! Rust runtime: `Int` and `Float` are distinct (`mod` of two ints is an int), a bigint constant
//! outside i64 is `nx-ir-malformed` when evaluated, an `nx.int` record is the integer at an
//! `int`/`int64` site, host `null` reads as the empty value everywhere (also nested under
//! `object`), integral floats up to ±(2^53−1) are accepted as range bounds, fields are written
//! in byte order of their names, and an image whose table names only the prelude must still be
//! linked. The native stack is guarded by the fixed expression nesting (1000), the call depth,
//! the value nesting (256) and a stack-position check (`max_stack_bytes`, 1 MiB by default).
//!
//! Components (descriptors, initialize, evaluate, dispatch, state, stored instances) are in
//! [`component`].

mod compiled;
pub mod component;
mod components;
mod constants;
mod constraints;
mod cost;
mod equality;
mod field_set;
mod host;
mod interval;
mod intrinsic;
pub mod json;
mod machine;
mod name;
mod name_index;
mod normalize;
mod output;
pub mod profile;
mod source;
mod seq;
mod standard;
pub(crate) mod stdlib;
mod text;
mod value;
pub mod work;
mod wide;

pub use compiled::CompiledProgram;
pub(crate) use compiled::image_hash;
pub use cost::{thread_stack_room, walk_stack_at, Limits, Usage, DEFAULT_MAX_CALL_DEPTH, DEFAULT_MAX_MEMORY, DEFAULT_MAX_RANGE_LENGTH, DEFAULT_MAX_STACK_BYTES, MAX_EXPRESSION_NESTING, MAX_VALUE_NESTING};
pub use host::{input_limit_error, measure_input_size, size_over_a_cycle, Around, HostRead, HostRecord, HostValue, HostValueBuilder, HostValueSink, HostValueSource, Member};
pub use seq::copy_short;
pub use source::{ModelProgram, ProgramSource};
pub use text::{float32_text, float64_text};
pub use work::{last_call_free_copies, last_call_work};
pub(crate) use cost::limit_error;

use crate::error::{codes, IrError, IrResult};

use compiled::CDeclKind;
use host::SizeMeter;
use machine::{with_places, Cx, Machine};
use normalize::{function_record, Path};
use value::FunctionRef;

/// The result of a call: its canonical value and what it used.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub value: HostValue,
    pub usage: Usage,
}

/// Evaluates the function entrypoint `name` of the entry module with positional arguments.
pub fn evaluate_function(program: &CompiledProgram, name: &str, args: &[HostValue], limits: &Limits) -> IrResult<Evaluation> {
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let value = evaluate_function_with(program, name, &args, limits, &mut HostValueBuilder, &mut usage)?;
    Ok(Evaluation { value, usage })
}

/// The arguments of [`call_function`]: by position (`None` = left out) or by parameter name.
#[derive(Debug, Clone, Copy)]
pub enum CallArguments<'a, S> {
    Positional(&'a [Option<S>]),
    Named(&'a [(&'a str, S)]),
}

/// Calls a function value (a `{"$type":"Function","module","name"}` record) with arguments by
/// position or by parameter name; names the function does not declare are dropped.
pub fn call_function(
    program: &CompiledProgram,
    function: &HostValue,
    args: CallArguments<'_, &HostValue>,
    limits: &Limits,
) -> IrResult<Evaluation> {
    let mut usage = Usage::default();
    let value = call_function_with(program, &function, args, limits, &mut HostValueBuilder, &mut usage)?;
    Ok(Evaluation { value, usage })
}

/// [`evaluate_function`] over any host value source and sink; `usage` is filled on success and
/// on failure. A `None` argument is left out for the function to fill.
pub fn evaluate_function_with<S, K>(
    program: &CompiledProgram,
    name: &str,
    args: &[Option<S>],
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
) -> IrResult<K::Out>
where
    S: HostValueSource<Child = S>,
    K: HostValueSink,
{
    evaluate_function_hooked(program, name, args, limits, sink, usage, HostCall::default())
}

/// A hook run when an evaluation has charged `after` operations (with or without a budget): a
/// binding releases its interpreter lock there, so short calls never pay for it. Its answer says
/// whether it runs again (after so many more operations: a binding polls for signals that way),
/// or stops the evaluation, which then fails with `nx-ir-interrupted` at that charge. It runs
/// from a charge while NX code runs: after every host value has been read and never once the
/// result is being written. It changes no charge, so values, usage and failures are the same
/// whatever it answers, up to the point where it stops the evaluation.
#[derive(Clone, Copy)]
pub struct LongRun<'a> {
    pub after: u64,
    pub hook: &'a dyn Fn() -> LongRunNext,
}

/// What a [`LongRun`] hook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongRunNext {
    /// Run the hook again once this many more operations (at least 1) have been charged.
    Again(u64),
    /// Never run the hook again in this evaluation.
    Done,
    /// Stop the evaluation: it fails with `nx-ir-interrupted` (its usage is reported as usual).
    Stop,
}

/// What a binding adds to a call: a [`LongRun`] hook, and the input size of the arguments when
/// it measured them itself while converting them (ir-format §6.2, exactly as the runtime would:
/// by position each argument, a left-out one 1, plus 1 for the list of a [`CallArguments`];
/// by name 1 for the record plus each name's text and value), so they are not walked twice.
#[derive(Clone, Copy, Default)]
pub struct HostCall<'a> {
    pub long_run: Option<LongRun<'a>>,
    pub args_size: Option<u64>,
}

/// A function of a compiled program resolved once from its `Function` record's module and name,
/// with the input size of that record, for calls that name it again and again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionHandle {
    function: FunctionRef,
    record_size: u64,
}

impl FunctionHandle {
    /// The input size of the `{"$type": "Function", "module", "name"}` record (ir-format §6.2).
    pub fn record_size(&self) -> u64 {
        self.record_size
    }
}

/// A function entrypoint of the program's entry module, found once by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entrypoint {
    decl: u32,
}

impl Entrypoint {
    fn function(self) -> FunctionRef {
        FunctionRef { module: 0, decl: self.decl }
    }
}

/// The entrypoint a call names: by its name, or found before.
#[derive(Debug, Clone, Copy)]
pub enum EntrypointRef<'a> {
    Name(&'a str),
    Found(Entrypoint),
}

impl<'a> From<&'a str> for EntrypointRef<'a> {
    fn from(name: &'a str) -> Self {
        EntrypointRef::Name(name)
    }
}

impl From<Entrypoint> for EntrypointRef<'_> {
    fn from(entrypoint: Entrypoint) -> Self {
        EntrypointRef::Found(entrypoint)
    }
}

impl CompiledProgram {
    /// The function entrypoint `name` of the entry module; `nx-ir-missing-entrypoint` when it
    /// has none of that name (`nx-ir-unlinked` for a program of no modules).
    pub fn entrypoint(&self, name: &str) -> IrResult<Entrypoint> {
        let entry = self.modules.first().ok_or_else(|| IrError::new(codes::UNLINKED, "The program has no modules."))?;
        entry
            .function_entrypoints
            .iter()
            .copied()
            .find(|d| entry.decls.get(*d as usize).is_some_and(|decl| &*decl.name == name))
            .map(|decl| Entrypoint { decl })
            .ok_or_else(|| IrError::new(codes::MISSING_ENTRYPOINT, format!("Function entrypoint '{name}' was not found.")))
    }

    /// Resolves the function `name` of the module `module`; `nx-ir-function-value` when the
    /// program links no such module or the module declares no such function.
    pub fn function_handle(&self, module: &str, name: &str) -> IrResult<FunctionHandle> {
        let function = self.resolve_function(module, name, &"call_function")?;
        // The record counts 1, its `$type` and member names nothing (under 64 units), each
        // member value 1 plus its text.
        let record_size = 3 + value::text_cost(module) + value::text_cost(name);
        Ok(FunctionHandle { function, record_size })
    }
}

/// Adds the arguments' size to `meter`: as the host measured it, or measured here.
fn measure_args(
    meter: &mut SizeMeter,
    measured: Option<u64>,
    measure: impl FnOnce(&mut SizeMeter) -> IrResult<()>,
) -> IrResult<()> {
    match measured {
        Some(size) => {
            meter.total = meter.total.saturating_add(size);
            Ok(())
        }
        None => measure(meter),
    }
}

/// Adds a call's arguments after its `Function` record (nothing once the record alone is over
/// the limit): as the host measured them, or by name or by position here (the record or list
/// counting 1).
fn measure_call_args<S: HostValueSource<Child = S>>(
    meter: &mut SizeMeter,
    measured: Option<u64>,
    args: &CallArguments<'_, S>,
) -> IrResult<()> {
    if meter.over() {
        return Ok(());
    }
    measure_args(meter, measured, |meter| match args {
        CallArguments::Named(fields) => meter.record(fields),
        CallArguments::Positional(items) => meter.list(items),
    })
}

/// [`evaluate_function_with`] with what a binding adds ([`HostCall`]); the entrypoint by name,
/// or found before ([`CompiledProgram::entrypoint`]).
pub fn evaluate_function_hooked<'n, S, K>(
    program: &CompiledProgram,
    entrypoint: impl Into<EntrypointRef<'n>>,
    args: &[Option<S>],
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<K::Out>
where
    S: HostValueSource<Child = S>,
    K: HostValueSink,
{
    begin_positional(limits, usage, args, host)?;
    let entrypoint = match entrypoint.into() {
        // The reference runtimes look the name up inside the call, once its input is measured:
        // a name not found there is a call that used no operations (0 under a budget).
        EntrypointRef::Name(name) => program.entrypoint(name).inspect_err(|_| usage.operations = limits.max_operations.map(|_| 0))?,
        EntrypointRef::Found(entrypoint) => entrypoint,
    };
    with_machine(program, limits, usage, host, |machine| {
        call_with(machine, entrypoint.function(), CallArguments::Positional(args), sink)
    })
}

/// [`begin`] of an entrypoint's call: its input is the list of its arguments (ir-format §6.2).
fn begin_positional<S: HostValueSource<Child = S>>(
    limits: &Limits,
    usage: &mut Usage,
    args: &[Option<S>],
    host: HostCall<'_>,
) -> IrResult<()> {
    begin(limits, usage, |meter| {
        measure_args(meter, host.args_size, |meter| {
            for arg in args {
                match arg {
                    Some(arg) => meter.value(arg)?,
                    None => meter.total += 1,
                }
                if meter.over() {
                    break;
                }
            }
            Ok(())
        })
    })
}

/// [`call_function`] over any host value source and sink. Input size (ir-format §6.2): the
/// Function record, then the arguments as one record (by name) or as one list (by position:
/// 1 for the list plus each argument, a left-out one counting 1).
pub fn call_function_with<S, K>(
    program: &CompiledProgram,
    function: &S,
    args: CallArguments<'_, S>,
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
) -> IrResult<K::Out>
where
    S: HostValueSource<Child = S>,
    K: HostValueSink,
{
    call_function_hooked(program, function, args, limits, sink, usage, HostCall::default())
}

/// The function a call names: a `Function` record as a host passes it, or one resolved before
/// ([`CompiledProgram::function_handle`]).
#[derive(Debug)]
pub enum Callee<'a, S> {
    Record(&'a S),
    Handle(FunctionHandle),
}

impl<S> Clone for Callee<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Callee<'_, S> {}

impl<'a, S> From<&'a S> for Callee<'a, S> {
    fn from(record: &'a S) -> Self {
        Callee::Record(record)
    }
}

impl<S> From<FunctionHandle> for Callee<'_, S> {
    fn from(handle: FunctionHandle) -> Self {
        Callee::Handle(handle)
    }
}

/// [`call_function_with`] with what a binding adds ([`HostCall`]). A function resolved before
/// is called as its record is: the same input size (the record's size included), call and
/// result, with no record to read.
pub fn call_function_hooked<'a, S, K>(
    program: &CompiledProgram,
    function: impl Into<Callee<'a, S>>,
    args: CallArguments<'_, S>,
    limits: &Limits,
    sink: &mut K,
    usage: &mut Usage,
    host: HostCall<'_>,
) -> IrResult<K::Out>
where
    S: HostValueSource<Child = S> + 'a,
    K: HostValueSink,
{
    let callee = function.into();
    begin(limits, usage, |meter| {
        match callee {
            Callee::Record(record) => meter.value(record)?,
            Callee::Handle(handle) => meter.total = handle.record_size,
        }
        measure_call_args(meter, host.args_size, &args)
    })?;
    with_machine(program, limits, usage, host, |machine| {
        let function = match callee {
            Callee::Handle(handle) => handle.function,
            Callee::Record(record) => {
                let record = machine.read_host(record, 0)?;
                let Some((module, name)) = function_record(&record) else {
                    return Err(IrError::new(
                        codes::FUNCTION_VALUE,
                        "call_function expects a Function record: { $type: \"Function\", module, name }.",
                    ));
                };
                machine.resolve_function(module, name, &"call_function")?
            }
        };
        call_with(machine, function, args, sink)
    })
}

/// Reads the arguments of a call of `function` and runs it.
fn call_with<S, K>(machine: &mut Machine<'_>, function: FunctionRef, args: CallArguments<'_, S>, sink: &mut K) -> IrResult<K::Out>
where
    S: HostValueSource<Child = S>,
    K: HostValueSink,
{
    match args {
        CallArguments::Named(named) => {
            let params = machine.params(function);
            with_places(params.len(), |values| {
                // Each name's value read in order (a name that is no parameter is read and
                // dropped), then put in its parameter's place: the first value of a name wins.
                machine.tally(params.len() as u64 * (named.len() as u64 + 1));
                for (key, value) in named {
                    match params.iter().position(|param| &*param.name == *key) {
                        Some(at) => {
                            let value = read_argument(machine, function, &params[at], value)?;
                            values[at].get_or_insert(value);
                        }
                        None => drop(machine.read_host(value, 0)?),
                    }
                }
                run(machine, function, values, sink)
            })
        }
        CallArguments::Positional(items) => with_places(items.len(), |values| {
            let params = machine.params(function);
            for (at, (place, item)) in values.iter_mut().zip(items).enumerate() {
                if let Some(item) = item {
                    *place = Some(match params.get(at) {
                        Some(param) => read_argument(machine, function, param, item)?,
                        None => machine.read_host(item, 0)?,
                    });
                }
            }
            run(machine, function, values, sink)
        }),
    }
}

/// An argument read for `param` of `function`: as the parameter's type will check it (see
/// `Machine::read_host_as`), but for a content parameter, whose items are gathered first.
#[inline]
fn read_argument<S: HostValueSource>(machine: &mut Machine<'_>, function: FunctionRef, param: &compiled::CField, value: &S) -> IrResult<value::Value> {
    if param.content {
        return machine.read_host(value, 0);
    }
    machine.read_host_as(value, function.module, param.ty)
}

/// The start of every call: its usage cleared, its limits checked, and its input measured by
/// `measure` (refused when over `max_input_size`, before anything runs).
pub(crate) fn begin(limits: &Limits, usage: &mut Usage, measure: impl FnOnce(&mut SizeMeter) -> IrResult<()>) -> IrResult<()> {
    *usage = Usage::default();
    work::record(0, 0);
    limits.validate()?;
    check_input_size(limits, usage, measure)
}

/// Runs `body` on a new machine with the host's long-run hook, then reports the operations it
/// used (on success and on failure) and its work.
pub(crate) fn with_machine<R>(
    program: &CompiledProgram,
    limits: &Limits,
    usage: &mut Usage,
    host: HostCall<'_>,
    body: impl FnOnce(&mut Machine<'_>) -> IrResult<R>,
) -> IrResult<R> {
    let mut machine = Machine::new(program, limits);
    if let Some(LongRun { after, hook }) = host.long_run {
        machine.on_long_run(after, hook);
    }
    if profile::requested() {
        machine.start_profile();
    }
    let wide_before = wide::work_done();
    let result = body(&mut machine);
    // The wide records' work (theirs is tallied apart, see `wide`).
    machine.tally(wide::work_done().wrapping_sub(wide_before));
    usage.operations = machine.used();
    if let Some(profile) = machine.finish_profile() {
        profile::deposit(profile);
    }
    work::record(machine.work, machine.free_copies);
    result
}

fn run<K: HostValueSink>(
    machine: &mut Machine<'_>,
    function: FunctionRef,
    args: &mut [Option<value::Value>],
    sink: &mut K,
) -> IrResult<K::Out> {
    let (value, result) = machine.invoke_unchecked(function, args, 0, true)?;
    let cx = Cx { module: function.module, decl: function.decl, depth: 0 };
    let prog = machine.prog;
    let declaration = prog.decl(function.module, function.decl);
    let (value, one_item) = match result {
        Some(ty) => machine.normalize_result(cx, ty, value, &Path::result(&declaration.name))?,
        None => (value, false),
    };
    machine.stop_long_run();
    if one_item {
        // A single value where a list is declared: written as that list, never built.
        let written = machine.write_one_item_list(cx, &value, sink);
        value.dispose();
        return written;
    }
    let optional = matches!(declaration.kind, CDeclKind::Function { result_optional: true, .. });
    if optional && value.is_empty() {
        return sink.null();
    }
    let written = machine.write(cx, &value, sink);
    if written.is_ok() && machine.wrote_scalar_list {
        // The result is a list its writing saw to hold scalars only.
        value.dispose_scalar_list();
    } else {
        value.dispose();
    }
    written
}

/// Measures a call's input with `measure` when `max_input_size` is set, before anything runs
/// (ir-format §6.2): over the limit, the call fails with nothing evaluated; within it, the size
/// goes into `usage`.
fn check_input_size(
    limits: &Limits,
    usage: &mut Usage,
    measure: impl FnOnce(&mut SizeMeter) -> IrResult<()>,
) -> IrResult<()> {
    let Some(limit) = limits.max_input_size else { return Ok(()) };
    let mut meter = SizeMeter::new(Some(limit));
    measure(&mut meter)?;
    if meter.over() {
        usage.operations = limits.max_operations.map(|_| 0);
        return Err(input_limit_error(limit));
    }
    usage.input_size = Some(meter.total);
    Ok(())
}

#[cfg(test)]
mod tests;
