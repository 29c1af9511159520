//! `rust/nx-ir-core/tests/schema6/expected.json`: what `nx-ir-runtime` 0.10.0 does with each
//! recorded call of our schema 6 programs, stored so that nx-ir-core's own test suite checks its
//! evaluation without the reference crates.
//!
//! For each call: its arguments, its outcome with no limits (the value, or every diagnostic,
//! with its message where messages are compared: the codes schema 6 added), the operations it
//! used and its input size under an ample budget and input limit, and its outcome (and operations
//! used) at two budgets below its count: one short, and half. Written
//! by `cargo run --bin schema6-expected` (see the crate's README line in the repository README);
//! `tests/schema6.rs` fails when the stored file is not what the reference gives now.

use serde_json::{json, Map, Number, Value as Json};

use crate::agreement::AMPLE;
use crate::engine::{CallLimits, Engine, Reference6};
use crate::outcome::{message_compared, Diag, Outcome, Value};
use crate::programs6;

/// Where the file lives, from the oracle crate.
pub fn path() -> std::path::PathBuf {
    programs6::spec::dir().join("expected.json")
}

fn value(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => json!(i),
        Value::Int32(i) => json!(i),
        Value::Float(bits) => float(f64::from_bits(*bits)),
        Value::Float32(bits) => float(f64::from(f32::from_bits(*bits))),
        Value::Str(s) => Json::String(s.clone()),
        Value::List(items) => Json::Array(items.iter().map(value).collect()),
        Value::Record { type_name, fields } => {
            let mut object = Map::new();
            if let Some(name) = type_name {
                object.insert("$type".to_string(), Json::String(name.clone()));
            }
            for (name, field) in fields {
                object.insert(name.clone(), value(field));
            }
            Json::Object(object)
        }
    }
}

/// A float as JSON text always writes it (`1.0`, `-0.0`, `1e300`), so it reads back as a float.
fn float(x: f64) -> Json {
    Json::Number(Number::from_f64(x).unwrap_or_else(|| panic!("a result holds the non-finite float {x}")))
}

fn diag(diag: &Diag) -> Json {
    let mut object = Map::new();
    object.insert("code".into(), json!(diag.code));
    if let Some(declaration) = &diag.declaration {
        object.insert("declaration".into(), json!(declaration));
    }
    if let Some(argument) = &diag.argument {
        object.insert("argument".into(), json!(argument));
    }
    if let Some(limit) = &diag.limit {
        object.insert("limit".into(), json!({ "name": limit.name, "value": limit.value }));
    }
    if let Some(source) = &diag.source {
        object.insert("source".into(), json!({ "identity": source.identity, "start": source.start, "end": source.end }));
    }
    if message_compared(&diag.code) {
        object.insert("message".into(), json!(diag.message));
    }
    Json::Object(object)
}

fn outcome(outcome: &Outcome) -> Json {
    match &outcome.result {
        Ok(v) => json!({ "value": value(v) }),
        Err(diags) => json!({ "error": diags.iter().map(diag).collect::<Vec<_>>() }),
    }
}

/// The file's text: a note, then one line per call.
pub fn render() -> String {
    let mut lines = Vec::new();
    for program in programs6::programs() {
        let modules: Vec<_> = program.images.iter().map(|image| Reference6::prepare(&image.bytes)).collect();
        let modules: Vec<_> = modules
            .into_iter()
            .zip(&program.images)
            .map(|(m, image)| m.unwrap_or_else(|e| panic!("{}: the reference refuses {}: {e:?}", program.name, image.file)))
            .collect();
        for call in &program.calls {
            let at = program.images.iter().position(|i| i.identity == call.module).expect("the call's module");
            let linked = Reference6::link(&modules[at], &modules)
                .unwrap_or_else(|e| panic!("{}: the reference does not link {}: {e:?}", program.name, call.module));
            let args: Vec<&str> = call.arguments.iter().map(String::as_str).collect();
            let run = |limits| Reference6::evaluate(&linked, &call.function, &args, limits);
            let unlimited = run(CallLimits::default());
            let ample = run(CallLimits { max_operations: Some(AMPLE), max_input_size: Some(AMPLE), ..CallLimits::default() });
            let count = ample.operations.unwrap_or(0);
            let mut budgets = Vec::new();
            for budget in [count.checked_sub(1), Some(count / 2)].into_iter().flatten() {
                if budget < count && !budgets.iter().any(|b: &(u64, Json)| b.0 == budget) {
                    let limited = run(CallLimits { max_operations: Some(budget), max_input_size: None, ..CallLimits::default() });
                    let mut entry = outcome(&limited);
                    entry["budget"] = json!(budget);
                    entry["operations"] = json!(limited.operations);
                    budgets.push((budget, entry));
                }
            }
            let arguments: Vec<Json> = call
                .arguments
                .iter()
                .map(|text| serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: argument {text}: {e}", program.name)))
                .collect();
            let mut entry = json!({
                "program": program.name,
                "module": call.module,
                "function": call.function,
                "case": call.case.clone().unwrap_or_default(),
                "arguments": arguments,
                "operations": ample.operations,
                "inputSize": ample.input_size,
                "budgets": budgets.into_iter().map(|b| b.1).collect::<Vec<_>>(),
            });
            entry["outcome"] = outcome(&unlimited);
            lines.push(serde_json::to_string(&entry).expect("JSON"));
        }
    }
    for program in programs6::programs() {
        for lifecycle in &program.lifecycles {
            lines.push(serde_json::to_string(&lifecycle_entry(&program, lifecycle)).expect("JSON"));
        }
    }
    let note = "What nx-ir-runtime 0.10.0 (the NX 0.10 reference runtime) does with every call of \
        programs.txt: its outcome with no limits, the operations it used and its input size under an \
        ample budget and input limit, and its outcome at two budgets below its count (a diagnostic's \
        message only for the codes schema 6 added, whose messages are compared). Written by \
        `cargo run --ignore-rust-version --manifest-path oracle/Cargo.toml --bin schema6-expected` \
        from the reference itself; do not edit. Read by tests/schema6_programs.rs. A lifecycle's entry \
        holds each call (initialize, then each batch) the same way: its outcome ({output, state} or \
        {effects, output, state}), operations, input size, and its outcome one operation short.";
    format!("{{\n\"note\": {},\n\"calls\": [\n{}\n]\n}}\n", json!(note), lines.join(",\n"))
}

/// A lifecycle's calls as the reference runs them: each call's outcome under an ample budget and
/// input limit (its value `{output, state}` for initialize, `{effects, output, state}` for a
/// batch), its operations and input size, and its outcome one operation short (from the
/// instance the ample run had before it).
fn lifecycle_entry(program: &crate::corpus::Program, lifecycle: &crate::corpus::Lifecycle) -> Json {
    let modules: Vec<_> = program.images.iter().map(|image| Reference6::prepare(&image.bytes).expect("the reference prepares it")).collect();
    let at = program.images.iter().position(|i| i.identity == lifecycle.module).expect("the lifecycle's module");
    let linked = Reference6::link(&modules[at], &modules).expect("the reference links it");
    let ample = CallLimits { max_operations: Some(AMPLE), max_input_size: Some(AMPLE), ..CallLimits::default() };
    let short = |operations: Option<u64>| operations.and_then(|count| count.checked_sub(1));
    let mut calls = Vec::new();
    let record = |outcome: &Outcome, below: Option<(u64, Outcome)>| {
        let mut entry = outcome_json(outcome);
        entry["operations"] = json!(outcome.operations);
        entry["inputSize"] = json!(outcome.input_size);
        if let Some((budget, below)) = below {
            let mut short = outcome_json(&below);
            short["budget"] = json!(budget);
            short["operations"] = json!(below.operations);
            entry["below"] = short;
        }
        entry
    };
    let (first, instance) = Reference6::initialize(&linked, &lifecycle.component, &lifecycle.props, ample);
    let below = short(first.operations).map(|budget| {
        let limits = CallLimits { max_operations: Some(budget), max_input_size: None, ..CallLimits::default() };
        (budget, Reference6::initialize(&linked, &lifecycle.component, &lifecycle.props, limits).0)
    });
    calls.push(record(&first, below));
    let mut instance = instance;
    for batch in &lifecycle.batches {
        let Some(current) = instance.take() else { break };
        let entries: Vec<&str> = batch.iter().map(String::as_str).collect();
        let (outcome, next) = Reference6::dispatch(&linked, &current, &entries, ample);
        let below = short(outcome.operations).filter(|_| outcome.result.is_ok()).map(|budget| {
            let limits = CallLimits { max_operations: Some(budget), max_input_size: None, ..CallLimits::default() };
            (budget, Reference6::dispatch(&linked, &current, &entries, limits).0)
        });
        calls.push(record(&outcome, below));
        instance = next;
    }
    let batches: Vec<Json> = lifecycle
        .batches
        .iter()
        .map(|batch| Json::Array(batch.iter().map(|e| serde_json::from_str(e).expect("an entry")).collect()))
        .collect();
    json!({
        "program": program.name,
        "module": lifecycle.module,
        "component": lifecycle.component,
        "props": serde_json::from_str::<Json>(&lifecycle.props).expect("props"),
        "batches": batches,
        "calls": calls,
    })
}

fn outcome_json(result: &Outcome) -> Json {
    outcome(result)
}
