//! Schema 6 conformance of our own: every recorded call of the schema 6 programs
//! (`tests/schema6/programs.txt`) evaluated by nx-ir-core and held to what `nx-ir-runtime` 0.10.0
//! did with it, as `tests/schema6/expected.json` stores it (written by the oracle crate from the
//! reference runtime; see that file's note). Compared: the value (floats by their bits), or every
//! diagnostic's code, declaration, argument, limit and source (and the message of the codes
//! schema 6 added); the operations used and the input size under an ample budget; the outcome and
//! operations used at the budgets stored.

mod support;

use std::collections::HashMap;
use std::sync::Arc;

use nx_ir_core::eval::json::from_json;
use nx_ir_core::eval::{evaluate_function_with, CompiledProgram, HostValue, HostValueBuilder, Limits, Usage};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::IrError;
use support::programs6;

const AMPLE: u64 = 1 << 40;

fn field<'a>(value: &'a HostValue, name: &str) -> Option<&'a HostValue> {
    match value {
        HostValue::Record(record) => record.get(name),
        _ => None,
    }
}

fn text(value: Option<&HostValue>) -> Option<String> {
    match value {
        Some(HostValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn int(value: Option<&HostValue>) -> Option<u64> {
    match value {
        Some(HostValue::Int(i)) => Some(*i as u64),
        _ => None,
    }
}

/// Two host values alike: floats by their bits, records by type name and fields in order.
fn same(a: &HostValue, b: &HostValue) -> bool {
    match (a, b) {
        (HostValue::Float(x), HostValue::Float(y)) => x.to_bits() == y.to_bits(),
        (HostValue::List(xs), HostValue::List(ys)) => xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y)),
        (HostValue::Record(x), HostValue::Record(y)) => {
            x.type_name == y.type_name
                && x.fields.len() == y.fields.len()
                && x.fields.iter().zip(&y.fields).all(|((n, x), (m, y))| n == m && same(x, y))
        }
        _ => a == b,
    }
}

/// A message is part of the contract for the codes schema 6 added.
fn message_compared(code: &str) -> bool {
    matches!(code, "nx-ir-boundary-constraint" | "nx-ir-constraint") || code.starts_with("nx-math-") || code.starts_with("color-")
}

/// What differs between our failure and the stored diagnostics, if anything.
fn diagnostics_differ(ours: &IrError, expected: &[HostValue]) -> Option<String> {
    if ours.diagnostics.len() != expected.len() {
        return Some(format!("{} diagnostics, expected {}", ours.diagnostics.len(), expected.len()));
    }
    for (d, e) in ours.diagnostics.iter().zip(expected) {
        let limit = field(e, "limit").map(|l| (text(field(l, "name")).unwrap_or_default(), int(field(l, "value"))));
        let source = field(e, "source").map(|s| {
            (text(field(s, "identity")).unwrap_or_default(), int(field(s, "start")).unwrap_or(0), int(field(s, "end")).unwrap_or(0))
        });
        let theirs = (text(field(e, "code")), text(field(e, "declaration")), text(field(e, "argument")), limit, source);
        let mine = (
            Some(d.code.to_string()),
            d.declaration.clone(),
            d.argument.clone(),
            d.limit.as_ref().map(|l| (l.name.to_string(), Some(l.value))),
            d.source.as_ref().map(|s| (s.identity.clone(), u64::from(s.start), u64::from(s.end))),
        );
        if mine != theirs {
            return Some(format!("diagnostic {mine:?}, expected {theirs:?}"));
        }
        let message = text(field(e, "message")).unwrap_or_default();
        if message_compared(d.code) && d.message != message {
            return Some(format!("message {:?}, expected {message:?}", d.message));
        }
    }
    None
}

/// What differs between a result and a stored outcome (`{"value": …}` or `{"error": […]}`).
fn outcome_differs(result: &Result<HostValue, IrError>, expected: &HostValue) -> Option<String> {
    match (result, field(expected, "value"), field(expected, "error")) {
        (Ok(value), Some(wanted), _) => (!same(value, wanted)).then(|| format!("value {value:?}, expected {wanted:?}")),
        (Err(error), _, Some(HostValue::List(diags))) => diagnostics_differ(error, diags),
        (Ok(value), _, _) => Some(format!("value {value:?}, expected a failure {expected:?}")),
        (Err(error), _, _) => Some(format!("failure {error:?}, expected {expected:?}")),
    }
}

/// Every program of the manifest, linked and compiled (each module as the entry it may be).
fn compiled() -> HashMap<(String, String), CompiledProgram> {
    let mut compiled = HashMap::new();
    for spec in programs6::programs() {
        let modules: Vec<Arc<PreparedModule>> = spec
            .assemble()
            .into_iter()
            .map(|m| Arc::new(PreparedModule::from_vec(m.bytes).unwrap_or_else(|e| panic!("{}: {}: {e}", spec.name, m.file))))
            .collect();
        for entry in &modules {
            let mut resolve = |identity: &str| Ok(modules.iter().find(|m| m.identity() == identity).cloned());
            let program = Program::link(Arc::clone(entry), &mut resolve, LinkOptions::default())
                .and_then(|p| CompiledProgram::compile(&p))
                .unwrap_or_else(|e| panic!("{}: {} does not link: {e}", spec.name, entry.identity()));
            compiled.insert((spec.name.clone(), entry.identity().to_string()), program);
        }
    }
    compiled
}

#[test]
fn every_schema_6_program_call_does_what_the_reference_did() {
    let path = programs6::dir().join("expected.json");
    let stored = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let stored = from_json(&stored).expect("expected.json is JSON");
    let Some(HostValue::List(calls)) = field(&stored, "calls") else { panic!("expected.json has no calls") };
    let programs = compiled();
    let (mut checked, mut budgets, mut failures) = (0, 0, Vec::new());
    let mut lifecycle_calls = 0;
    for call in calls {
        if field(call, "component").is_some() {
            lifecycle_calls += check_lifecycle(&programs, call, &mut failures);
            continue;
        }
        let name = |key| text(field(call, key)).unwrap_or_default();
        let key = format!("{}/{}::{}#{}", name("program"), name("module"), name("function"), name("case"));
        let Some(program) = programs.get(&(name("program"), name("module"))) else {
            failures.push(format!("{key}: no such program and module"));
            continue;
        };
        let Some(HostValue::List(args)) = field(call, "arguments") else { panic!("{key}: no arguments") };
        let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
        let function = name("function");
        let run = |limits: Limits| {
            let mut usage = Usage::default();
            let result = evaluate_function_with(program, &function, &args, &limits, &mut HostValueBuilder, &mut usage);
            (result, usage)
        };
        checked += 1;
        let (result, _) = run(Limits::default());
        if let Some(problem) = outcome_differs(&result, field(call, "outcome").expect("an outcome")) {
            failures.push(format!("{key} unlimited: {problem}"));
        }
        let (_, usage) = run(Limits { max_operations: Some(AMPLE), max_input_size: Some(AMPLE), ..Limits::default() });
        let wanted = (int(field(call, "operations")), int(field(call, "inputSize")));
        if (usage.operations, usage.input_size) != wanted {
            failures.push(format!("{key}: used {:?} with input size {:?}, expected {wanted:?}", usage.operations, usage.input_size));
        }
        let Some(HostValue::List(limited)) = field(call, "budgets") else { continue };
        for entry in limited {
            let budget = int(field(entry, "budget")).expect("a budget");
            budgets += 1;
            let (result, usage) = run(Limits { max_operations: Some(budget), ..Limits::default() });
            if let Some(problem) = outcome_differs(&result, entry) {
                failures.push(format!("{key} at budget {budget}: {problem}"));
            }
            if usage.operations != int(field(entry, "operations")) {
                failures.push(format!("{key} at budget {budget}: used {:?}", usage.operations));
            }
        }
    }
    println!(
        "schema 6 programs: {checked} calls, {budgets} budgets, {lifecycle_calls} lifecycle calls (each also one operation short), {} failures",
        failures.len()
    );
    assert!(lifecycle_calls >= 40, "only {lifecycle_calls} lifecycle calls");
    assert!(checked >= 10, "only {checked} calls in {}", path.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One stored lifecycle: initialize, then each batch against the instance before, each call's
/// outcome (`{output, state}`, `{effects, output, state}`, or the failure), operations and input
/// size under an ample budget, and its outcome one operation short, as the reference's.
fn check_lifecycle(programs: &HashMap<(String, String), CompiledProgram>, stored: &HostValue, failures: &mut Vec<String>) -> usize {
    use nx_ir_core::eval::component::{dispatch_component_actions_with, initialize_component_with, ComponentInit, ComponentInstance};
    use nx_ir_core::eval::{HostCall, HostRecord};
    let name = |key| text(field(stored, key)).unwrap_or_default();
    let key = format!("{}/{}::{} lifecycle", name("program"), name("module"), name("component"));
    let Some(program) = programs.get(&(name("program"), name("module"))) else {
        failures.push(format!("{key}: no such program and module"));
        return 0;
    };
    let props: Vec<(String, HostValue)> = match field(stored, "props") {
        Some(HostValue::Record(record)) => {
            let mut props = record.fields.clone();
            if let Some(type_name) = &record.type_name {
                props.push(("$type".into(), HostValue::Str(type_name.clone())));
            }
            props
        }
        _ => Vec::new(),
    };
    let pairs: Vec<(&str, &HostValue)> = props.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let Some(HostValue::List(batches)) = field(stored, "batches") else { panic!("{key}: no batches") };
    let Some(HostValue::List(calls)) = field(stored, "calls") else { panic!("{key}: no calls") };
    let parts = |fields: Vec<(&str, HostValue)>| {
        HostValue::Record(HostRecord { type_name: None, fields: fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect() })
    };
    let initialize = |limits: &Limits| {
        let mut usage = Usage::default();
        let result = initialize_component_with(program, &name("component"), &pairs, ComponentInit::default(), limits, &mut HostValueBuilder, &mut usage, HostCall::default());
        let instance = result.as_ref().ok().map(|init| init.instance.clone());
        (result.map(|init| parts(vec![("output", init.output), ("state", init.state)])), usage, instance)
    };
    let dispatch = |instance: &ComponentInstance, batch: &[HostValue], limits: &Limits| {
        let entries: Vec<&HostValue> = batch.iter().collect();
        let mut usage = Usage::default();
        let result = dispatch_component_actions_with(program, instance, &entries, limits, &mut HostValueBuilder, &mut usage, HostCall::default());
        let next = result.as_ref().ok().map(|done| done.instance.clone());
        (result.map(|done| parts(vec![("effects", HostValue::List(done.effects)), ("output", done.output), ("state", done.state)])), usage, next)
    };
    let ample = Limits { max_operations: Some(AMPLE), max_input_size: Some(AMPLE), ..Limits::default() };
    let mut instance: Option<ComponentInstance> = None;
    let mut checked = 0;
    for (at, expected) in calls.iter().enumerate() {
        let what = if at == 0 { format!("{key} initialize") } else { format!("{key} batch {at}") };
        let batch: Vec<HostValue> = match (at, batches.get(at.wrapping_sub(1))) {
            (0, _) => Vec::new(),
            (_, Some(HostValue::List(entries))) => entries.clone(),
            _ => panic!("{what}: no batch"),
        };
        let run = |limits: &Limits| match (at, &instance) {
            (0, _) => initialize(limits),
            (_, Some(current)) => dispatch(current, &batch, limits),
            (_, None) => panic!("{what}: no instance to dispatch to"),
        };
        let (result, usage, next) = run(&ample);
        checked += 1;
        if let Some(problem) = outcome_differs(&result, expected) {
            failures.push(format!("{what}: {problem}"));
        }
        let wanted = (int(field(expected, "operations")), int(field(expected, "inputSize")));
        if (usage.operations, usage.input_size) != wanted {
            failures.push(format!("{what}: used {:?} with input size {:?}, expected {wanted:?}", usage.operations, usage.input_size));
        }
        if let Some(below) = field(expected, "below") {
            let budget = int(field(below, "budget")).expect("a budget");
            let (result, usage, _) = run(&Limits { max_operations: Some(budget), ..Limits::default() });
            if let Some(problem) = outcome_differs(&result, below) {
                failures.push(format!("{what} at budget {budget}: {problem}"));
            }
            if usage.operations != int(field(below, "operations")) {
                failures.push(format!("{what} at budget {budget}: used {:?}", usage.operations));
            }
        }
        instance = next;
    }
    checked
}
