//! The differential fuzz target's case (`oracle/fuzz/`): one input is a set of images, a call
//! and its limits, run in nx-ir-core and in the reference release of the entry image's schema
//! (5: `nx-ir-runtime` 0.7.0, 6: 0.10.0); the two must do the same.
//!
//! The input is the evaluate target's (`nx_ir_core::testing::fuzz`, whose structured mutator the
//! target uses): `flags: u8`, a call chunk ([`Call`]), then image chunks, the first the entry.
//! What is compared, in order:
//!
//! 1. **Prepare**, every image against the reference of its own schema (the byte at offset 4; any
//!    other value against 0.10.0): both accept it, saying the same about it (identity, version,
//!    fingerprint, entrypoints), or both refuse it with the same diagnostics.
//! 2. **Link**, when both accept the entry: the entry against the images of its schema both
//!    accepted (flag bit 1: a version mismatch allowed). Both link, or both refuse alike.
//!    nx-ir-core's link includes compiling the program.
//! 3. **The call**, when both link: flag bit 0 clear, `evaluate_function` of a function
//!    entrypoint of the entry (`entry` of the call, modulo their number) with the arguments by
//!    position; set, `call_function` of a `Function` record (fuzzed with flag bit 6, else naming
//!    declaration `decl` of module `entry` of the set) with the arguments by name, an empty name
//!    standing for the parameter at that position (flag bit 7, positional arguments, is not a
//!    reference API and is ignored). Both give the same value, or the same diagnostics (code,
//!    declaration, argument, limit, span), and report the same operations and input size; under
//!    the call's budget (at most [`BUDGET`](nx_ir_core::testing::fuzz::BUDGET)), input limit,
//!    call depth and range length; and then again under a budget below the operations the call
//!    used, drawn from the input's hash, where both must stop alike.
//!
//! Host values are given to both engines alike ([`host_value`]): a record's fields by distinct
//! names, none named `$type`, as the reference's host value (a map) holds them.
//!
//! Outcomes that are not compared, each counted ([`Skip`]):
//! * nx-ir-core fails `nx-ir-unsupported`: the schema 6 evaluator is not complete yet (the one
//!   line to remove when it is: [`UNSUPPORTED_IS_NOT_A_FINDING`]);
//! * either engine stops at `maxStackBytes`: how much native stack a nesting uses is each build's
//!   own (docs/runtime-differences.md: nx-ir-core meets its stack limit before the reference's
//!   1,000-expression nesting limit; under AddressSanitizer both use several times more);
//! * nx-ir-core stops at its memory ceiling (limit `memory`, 256 MiB): the reference has none
//!   and charges nothing for what update intrinsics and handlers copy, so a call of a few
//!   thousand operations that copies a wide record or a frame of thousands of slots each time
//!   finishes there (docs/runtime-differences.md);
//! * a module of the set declares one name twice in one list of fields: a record's or a union
//!   case's fields, a component's props or its state, a function's parameters
//!   ([`declares_a_field_twice`]). No NX compiler writes such an image (NX refuses the source),
//!   and neither reference refuses one when it prepares it; the reference then checks and keeps
//!   both fields (a record holding the name twice, whose member read sees the first and whose
//!   host value the last), where nx-ir-core moves each written value into its field once.
//!   Matching that would cost every construction a copy for images no compiler makes, so such
//!   inputs are compared up to linking only (docs/runtime-differences.md).

use crate::engine::{host_fields, host_value, CallLimits, Engine, HostCall, ModuleFacts, Ours, Reference5, Reference6};
use crate::outcome::{Diag, Diags, Messages, Outcome};
use nx_ir_core::eval::{HostRecord, HostValue};
use nx_ir_core::model::Decl;
use nx_ir_core::testing::fuzz::{Bytes, Call};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Until the schema 6 evaluator is complete, an outcome where nx-ir-core fails
/// `nx-ir-unsupported` is not compared. Set to `false` (or remove) when it lands.
pub const UNSUPPORTED_IS_NOT_A_FINDING: bool = true;

/// How far an input got with both engines agreeing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Both refused the entry image alike.
    Prepared,
    /// Both refused to link alike.
    Linked,
    /// Both made the call and gave the same value.
    SameValue,
    /// Both made the call and failed alike.
    SameFailure,
}

/// Why an outcome was not compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// The input holds no image.
    Empty,
    /// nx-ir-core failed `nx-ir-unsupported` ([`UNSUPPORTED_IS_NOT_A_FINDING`]).
    Unsupported,
    /// An engine stopped at `maxStackBytes`.
    StackLimit,
    /// nx-ir-core stopped at its memory ceiling.
    MemoryLimit,
    /// A module of the set declares a field or parameter name twice ([`declares_a_field_twice`]).
    FieldTwice,
}

/// What one input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Agreed(Stage),
    Skipped(Skip),
    /// The engines disagree: what each did.
    Disagreed(String),
}

/// Counts of verdicts over a run (the target prints them when it exits).
#[derive(Debug, Default)]
pub struct Counts {
    pub inputs: AtomicU64,
    pub refused_alike: AtomicU64,
    pub link_refused_alike: AtomicU64,
    pub calls_agreed: AtomicU64,
    pub calls_failed_alike: AtomicU64,
    pub skipped_unsupported: AtomicU64,
    pub skipped_stack: AtomicU64,
    pub skipped_memory: AtomicU64,
    pub skipped_field_twice: AtomicU64,
    pub schema5: AtomicU64,
    pub schema6: AtomicU64,
    pub disagreements: AtomicU64,
}

/// The counts of this process.
pub static COUNTS: Counts = Counts {
    inputs: AtomicU64::new(0),
    refused_alike: AtomicU64::new(0),
    link_refused_alike: AtomicU64::new(0),
    calls_agreed: AtomicU64::new(0),
    calls_failed_alike: AtomicU64::new(0),
    skipped_unsupported: AtomicU64::new(0),
    skipped_stack: AtomicU64::new(0),
    skipped_memory: AtomicU64::new(0),
    skipped_field_twice: AtomicU64::new(0),
    schema5: AtomicU64::new(0),
    schema6: AtomicU64::new(0),
    disagreements: AtomicU64::new(0),
};

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        write!(
            f,
            "differential: {} inputs (entry schema 5: {}, 6: {}); entry refused alike {}, link refused alike {}; \
             calls compared: {} gave the same value, {} failed alike; not compared: {} nx-ir-unsupported, \
             {} maxStackBytes, {} our memory ceiling, {} a field declared twice; {} disagreements",
            n(&self.inputs),
            n(&self.schema5),
            n(&self.schema6),
            n(&self.refused_alike),
            n(&self.link_refused_alike),
            n(&self.calls_agreed),
            n(&self.calls_failed_alike),
            n(&self.skipped_unsupported),
            n(&self.skipped_stack),
            n(&self.skipped_memory),
            n(&self.skipped_field_twice),
            n(&self.disagreements),
        )
    }
}

/// Runs one input in both engines and says what they did (and counts it in [`COUNTS`]).
pub fn differential_case(data: &[u8]) -> Verdict {
    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    let call = Call::decode(flags, bytes.chunk().unwrap_or_default());
    let images: Vec<&[u8]> = std::iter::from_fn(|| bytes.chunk()).collect();
    COUNTS.inputs.fetch_add(1, Ordering::Relaxed);
    let draw = fnv1a(data);
    let verdict = match images.first().map(|entry| schema_of(entry)) {
        None => Verdict::Skipped(Skip::Empty),
        Some(5) => {
            COUNTS.schema5.fetch_add(1, Ordering::Relaxed);
            run::<Reference5>(5, flags, &call, &images, draw)
        }
        Some(schema) => {
            if schema == 6 {
                COUNTS.schema6.fetch_add(1, Ordering::Relaxed);
            }
            run::<Reference6>(schema, flags, &call, &images, draw)
        }
    };
    let counter = match &verdict {
        Verdict::Agreed(Stage::Prepared) => &COUNTS.refused_alike,
        Verdict::Agreed(Stage::Linked) => &COUNTS.link_refused_alike,
        Verdict::Agreed(Stage::SameValue) => &COUNTS.calls_agreed,
        Verdict::Agreed(Stage::SameFailure) => &COUNTS.calls_failed_alike,
        Verdict::Skipped(Skip::Unsupported) => &COUNTS.skipped_unsupported,
        Verdict::Skipped(Skip::StackLimit) => &COUNTS.skipped_stack,
        Verdict::Skipped(Skip::MemoryLimit) => &COUNTS.skipped_memory,
        Verdict::Skipped(Skip::FieldTwice) => &COUNTS.skipped_field_twice,
        Verdict::Skipped(Skip::Empty) => return verdict,
        Verdict::Disagreed(_) => &COUNTS.disagreements,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    verdict
}

/// FNV-1a-64 of the input: the second budget's draw, the same for every run of one input.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The schema an image says it has (the byte at offset 4), 0 when it is too short to say.
pub fn schema_of(image: &[u8]) -> u8 {
    image.get(4).copied().unwrap_or(0)
}

/// Prepares `image` in nx-ir-core and in the reference of its schema; `Err` when they disagree.
fn prepare_both(at: usize, image: &[u8]) -> Result<Option<<Ours as Engine>::Module>, String> {
    match schema_of(image) {
        5 => prepare_pair::<Reference5>(at, image).map(|pair| pair.map(|(ours, _)| ours)),
        _ => prepare_pair::<Reference6>(at, image).map(|pair| pair.map(|(ours, _)| ours)),
    }
}

type Pair<R> = (<Ours as Engine>::Module, <R as Engine>::Module);

/// Both prepared modules when both accept `image`, `None` when both refuse it alike.
fn prepare_pair<R: Engine>(at: usize, image: &[u8]) -> Result<Option<Pair<R>>, String> {
    match (Ours::prepare(image), R::prepare(image)) {
        (Ok(ours), Ok(theirs)) => {
            let (a, b) = (Ours::facts(&ours), R::facts(&theirs));
            if a != b {
                return Err(format!("image {at}: prepared as {} by {} and as {} by {}", facts(&a), Ours::NAME, facts(&b), R::NAME));
            }
            Ok(Some((ours, theirs)))
        }
        (Err(a), Err(b)) if a == b => Ok(None),
        (a, b) => Err(format!(
            "image {at} ({} bytes, schema byte {}): prepare: {} {} / {} {}",
            image.len(),
            schema_of(image),
            Ours::NAME,
            accepted(&a.map(|_| ())),
            R::NAME,
            accepted(&b.map(|_| ()))
        )),
    }
}

fn run<R: Engine>(schema: u8, flags: u8, call: &Call, images: &[&[u8]], draw: u64) -> Verdict {
    // Every image against the reference of its own schema; the set is the entry's schema's.
    let mut ours: Vec<<Ours as Engine>::Module> = Vec::new();
    let mut theirs: Vec<R::Module> = Vec::new();
    for (at, image) in images.iter().enumerate() {
        if schema_of(image) != schema {
            if let Err(disagreement) = prepare_both(at, image) {
                return Verdict::Disagreed(disagreement);
            }
            continue;
        }
        match prepare_pair::<R>(at, image) {
            Err(disagreement) => return Verdict::Disagreed(disagreement),
            Ok(Some((a, b))) => {
                ours.push(a);
                theirs.push(b);
            }
            Ok(None) if at == 0 => return Verdict::Agreed(Stage::Prepared),
            Ok(None) => {}
        }
    }

    let allow_version_mismatch = flags & 2 != 0;
    let (ours_program, their_program) = match (
        Ours::link_with(&ours[0], &ours, allow_version_mismatch),
        R::link_with(&theirs[0], &theirs, allow_version_mismatch),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(a), Err(b)) if a == b => return Verdict::Agreed(Stage::Linked),
        (a, b) => {
            return Verdict::Disagreed(format!(
                "link of {} module(s): {} {} / {} {}",
                ours.len(),
                Ours::NAME,
                accepted(&a.map(|_| ())),
                R::NAME,
                accepted(&b.map(|_| ()))
            ))
        }
    };

    if ours.iter().any(|module| declares_a_field_twice(module)) {
        return Verdict::Skipped(Skip::FieldTwice);
    }
    let host_call = host_call(flags, call, &ours, &R::facts(&theirs[0]));
    let limits = CallLimits {
        max_operations: call.limits.max_operations,
        max_input_size: call.limits.max_input_size,
        max_call_depth: Some(call.limits.max_call_depth),
        max_range_length: Some(call.limits.max_range_length),
        max_stack_bytes: None,
    };
    let compare = |limits: CallLimits| -> Result<Outcome, Verdict> {
        let a = Ours::call(&ours_program, &host_call, limits);
        if UNSUPPORTED_IS_NOT_A_FINDING && has_code(&a, "nx-ir-unsupported") {
            return Err(Verdict::Skipped(Skip::Unsupported));
        }
        let b = R::call(&their_program, &host_call, limits);
        if stops_at(&a, "maxStackBytes") || stops_at(&b, "maxStackBytes") {
            return Err(Verdict::Skipped(Skip::StackLimit));
        }
        if stops_at(&a, "memory") {
            return Err(Verdict::Skipped(Skip::MemoryLimit));
        }
        if a != b {
            return Err(Verdict::Disagreed(format!(
                "{} under {limits:?}:\n  {} {a}\n{}  {} {b}\n{}",
                describe(&host_call),
                Ours::NAME,
                Messages(&a),
                R::NAME,
                Messages(&b)
            )));
        }
        Ok(a)
    };
    let outcome = match compare(limits) {
        Ok(outcome) => outcome,
        Err(verdict) => return verdict,
    };
    // Again under a budget below what the call used, drawn from the input: both engines must stop
    // at the same operation, with the same failure.
    if let Some(used) = outcome.operations.filter(|used| *used > 0) {
        let budget = Some(draw % used);
        if let Err(Verdict::Disagreed(what)) = compare(CallLimits { max_operations: budget, ..limits }) {
            return Verdict::Disagreed(what);
        }
    }
    Verdict::Agreed(if outcome.result.is_ok() { Stage::SameValue } else { Stage::SameFailure })
}

/// The call an input makes (see the module's documentation).
fn host_call(flags: u8, call: &Call, set: &[<Ours as Engine>::Module], entry: &ModuleFacts) -> HostCall {
    if flags & 1 == 0 {
        let names = &entry.function_entrypoints;
        let name = names.get(usize::from(call.entry) % names.len().max(1)).cloned().unwrap_or_default();
        let args = call.args.iter().map(|(_, value)| host_value(value)).collect();
        return HostCall::Entrypoint { name, args };
    }
    let module = &set[usize::from(call.entry) % set.len()];
    let function = match (&call.function, flags & 64 != 0) {
        (Some(function), true) => host_value(function),
        _ => {
            let decl = u32::from(call.decl) % (module.declaration_count() as u32).max(1);
            HostValue::Record(
                HostRecord::new(Some("Function"))
                    .with("module", HostValue::str(module.identity()))
                    .with("name", HostValue::str(module.declaration_name(decl).unwrap_or(""))),
            )
        }
    };
    let params = params_of(set, &function);
    let named: Vec<(String, HostValue)> = call
        .args
        .iter()
        .enumerate()
        .map(|(at, (name, value))| match name.as_str() {
            "" => (params.get(at).cloned().unwrap_or_default(), value.clone()),
            _ => (name.clone(), value.clone()),
        })
        .collect();
    HostCall::Function { function, args: host_fields(&named) }
}

/// The parameter names of the function a `Function` record names in `set`, if it names one.
fn params_of(set: &[<Ours as Engine>::Module], function: &HostValue) -> Vec<String> {
    let HostValue::Record(record) = function else { return Vec::new() };
    let (Some(HostValue::Str(module)), Some(HostValue::Str(name))) = (record.get("module"), record.get("name")) else {
        return Vec::new();
    };
    let Some(module) = set.iter().find(|m| m.identity() == module.as_str()) else { return Vec::new() };
    match module.declaration_index(name).and_then(|index| module.decode_declaration(index)) {
        Some(Decl::Function { params, .. }) => params.iter().map(|p| module.string(p.name).unwrap_or("").to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Whether a declaration of `module` names two of its fields (a record's, a union case's, a
/// component's props or state) or two of its parameters alike.
pub fn declares_a_field_twice(module: &nx_ir_core::image::PreparedModule) -> bool {
    let twice = |fields: &[nx_ir_core::model::Field]| {
        let names: Vec<Option<&str>> = fields.iter().map(|f| module.string(f.name)).collect();
        names.iter().enumerate().any(|(at, name)| names[..at].contains(name))
    };
    (0..module.declaration_count() as u32).filter_map(|index| module.decode_declaration(index)).any(|decl| match decl {
        Decl::Function { params, .. } => twice(&params),
        Decl::Record { fields, .. } => twice(&fields),
        Decl::Component { props, state, .. } => twice(&props) || twice(&state),
        Decl::Union { cases, .. } => cases.iter().any(|case| twice(&case.fields)),
        Decl::Value { .. } | Decl::TypeAlias { .. } => false,
    })
}

fn has_code(outcome: &Outcome, code: &str) -> bool {
    matches!(&outcome.result, Err(diags) if diags.iter().any(|d| d.code == code))
}

/// Whether `outcome` failed at the limit named `name`.
fn stops_at(outcome: &Outcome, name: &str) -> bool {
    let limit = |d: &Diag| d.limit.as_ref().is_some_and(|l| l.name == name);
    matches!(&outcome.result, Err(diags) if diags.iter().any(limit))
}

fn describe(call: &HostCall) -> String {
    let value = |v: &HostValue| nx_ir_core::eval::json::to_json(v);
    match call {
        HostCall::Entrypoint { name, args } => {
            let args: Vec<String> = args.iter().map(value).collect();
            format!("evaluate_function {name:?}({})", args.join(", "))
        }
        HostCall::Function { function, args } => {
            let args: Vec<String> = args.iter().map(|(name, v)| format!("{name}: {}", value(v))).collect();
            format!("call_function {}({})", value(function), args.join(", "))
        }
    }
}

fn facts(facts: &ModuleFacts) -> String {
    format!(
        "{} version {:?} fingerprint {} functions {:?} components {:?}",
        facts.identity, facts.version, facts.fingerprint, facts.function_entrypoints, facts.component_entrypoints
    )
}

fn accepted(result: &Result<(), Vec<Diag>>) -> String {
    match result {
        Ok(()) => "accepted".to_string(),
        Err(diags) => format!("refused {}", Diags(diags)),
    }
}
