//! Lifecycle agreement: every lifecycle a program records, driven in nx-ir-core and in a
//! reference release, each call (initialize, then every batch) compared in full (output with its
//! handler tokens, effects, state, diagnostics, operations and input size):
//!
//! * with no limits, and with an ample budget and input limit, the whole lifecycle;
//! * every call at every budget from 0 to its count, and at one input unit too few, each from
//!   the instance the ample run had before it;
//! * the whole lifecycle again with every instance written out and restored by each engine
//!   before its next dispatch (each engine's own stored form);
//! * the component's other calls on what the lifecycle passed through: `evaluate_component`
//!   with the props and each state it reached, `normalize_component_state` of each state, a
//!   patch of each state with the next one, and the descriptor of the props, each at every
//!   budget up to its count.

use crate::agreement::{Report, AMPLE};
use crate::corpus::{Lifecycle, Program};
use crate::engine::{CallLimits, Engine, Ours};
use crate::outcome::{Outcome, Value};

/// Every lifecycle of every program, against the stripped and the full images.
pub fn lifecycles_agreement<R: Engine>(programs: &[Program]) -> Report {
    let mut report = Report::default();
    for program in programs {
        if program.lifecycles.is_empty() {
            continue;
        }
        for full in [false, true] {
            check_variant::<R>(program, full, &mut report);
        }
    }
    report
}

/// Every lifecycle of programs of our own (one image per module).
pub fn own_lifecycles_agreement<R: Engine>(programs: &[Program]) -> Report {
    let mut report = Report::default();
    for program in programs.iter().filter(|p| !p.lifecycles.is_empty()) {
        check_variant::<R>(program, true, &mut report);
    }
    report
}

fn check_variant<R: Engine>(program: &Program, full: bool, report: &mut Report) {
    let variant = format!("{} [{}]", program.name, if full { "full" } else { "stripped" });
    let images = program.variant(full);
    let ours: Vec<_> = images.iter().map(|image| Ours::prepare(&image.bytes).expect("nx-ir-core prepares the image")).collect();
    let theirs: Vec<_> = images.iter().map(|image| R::prepare(&image.bytes).expect("the reference prepares the image")).collect();
    for lifecycle in &program.lifecycles {
        let Some(at) = images.iter().position(|image| image.identity == lifecycle.module) else {
            report.disagreements.push(format!("{variant} {}: no image of the module", lifecycle.key()));
            continue;
        };
        let (Ok(a), Ok(b)) = (Ours::link(&ours[at], &ours), R::link(&theirs[at], &theirs)) else {
            report.disagreements.push(format!("{variant} {}: the module does not link in both engines", lifecycle.key()));
            continue;
        };
        report.linked += 1;
        let name = format!("{variant} {}", lifecycle.key());
        drive::<R>(&a, &b, lifecycle, &name, report);
    }
}

/// A lifecycle's calls in both engines.
struct Run<A, B> {
    /// Each call's outcome in nx-ir-core and in the reference.
    outcomes: Vec<(Outcome, Outcome)>,
    /// The instances each engine had before each dispatch.
    instances: Vec<(A, B)>,
}

fn run<R: Engine>(
    ours: &<Ours as Engine>::Program,
    theirs: &R::Program,
    lifecycle: &Lifecycle,
    limits: CallLimits,
    restore: bool,
) -> Result<Run<<Ours as Engine>::Instance, R::Instance>, String> {
    let mut outcomes = Vec::new();
    let mut instances = Vec::new();
    let (a, ia) = Ours::initialize(ours, &lifecycle.component, &lifecycle.props, limits);
    let (b, ib) = R::initialize(theirs, &lifecycle.component, &lifecycle.props, limits);
    outcomes.push((a, b));
    let (Some(mut ia), Some(mut ib)) = (ia, ib) else { return Ok(Run { outcomes, instances }) };
    for batch in &lifecycle.batches {
        if restore {
            match (Ours::stored_and_restored(ours, &ia), R::stored_and_restored(theirs, &ib)) {
                (Ok(a), Ok(b)) => {
                    ia = a;
                    ib = b;
                }
                (a, b) => return Err(format!("store and restore: {} {:?} / {} {:?}", Ours::NAME, a.err(), R::NAME, b.err())),
            }
        }
        instances.push((ia.clone(), ib.clone()));
        let entries: Vec<&str> = batch.iter().map(String::as_str).collect();
        let (a, na) = Ours::dispatch(ours, &ia, &entries, limits);
        let (b, nb) = R::dispatch(theirs, &ib, &entries, limits);
        outcomes.push((a, b));
        match (na, nb) {
            (Some(a), Some(b)) => {
                ia = a;
                ib = b;
            }
            _ => break,
        }
    }
    Ok(Run { outcomes, instances })
}

fn compare(name: &str, what: &str, a: &Outcome, b: &Outcome, report: &mut Report) {
    if a != b {
        report.disagreements.push(format!("{name} {what}: {} {a} / {} {b}", Ours::NAME, "reference"));
    }
}

fn drive<R: Engine>(ours: &<Ours as Engine>::Program, theirs: &R::Program, lifecycle: &Lifecycle, name: &str, report: &mut Report) {
    let ample = CallLimits { max_operations: Some(AMPLE), max_input_size: Some(AMPLE), ..CallLimits::default() };
    let label = |call: usize| if call == 0 { "initialize".to_string() } else { format!("batch {call}") };
    for (limits, what, restore) in [(CallLimits::default(), "unlimited", false), (ample, "ample", false), (ample, "stored and restored", true)] {
        match run::<R>(ours, theirs, lifecycle, limits, restore) {
            Ok(run) => {
                report.calls += run.outcomes.len();
                for (call, (a, b)) in run.outcomes.iter().enumerate() {
                    compare(name, &format!("{} {what}", label(call)), a, b, report);
                }
            }
            Err(problem) => report.disagreements.push(format!("{name} {what}: {problem}")),
        }
    }
    let Ok(full) = run::<R>(ours, theirs, lifecycle, ample, false) else { return };
    // Every call at every budget and one input unit short, from the instance before it.
    for (call, (a, b)) in full.outcomes.iter().enumerate() {
        let count = a.operations.unwrap_or(0).max(b.operations.unwrap_or(0));
        let size = b.input_size.unwrap_or(0);
        let mut limited = vec![CallLimits { max_operations: None, max_input_size: Some(size.saturating_sub(1)), ..CallLimits::default() }];
        limited.extend((0..=count).map(|budget| CallLimits { max_operations: Some(budget), max_input_size: None, ..CallLimits::default() }));
        for limits in limited {
            let (a, b) = if call == 0 {
                (
                    Ours::initialize(ours, &lifecycle.component, &lifecycle.props, limits).0,
                    R::initialize(theirs, &lifecycle.component, &lifecycle.props, limits).0,
                )
            } else {
                let Some((ia, ib)) = full.instances.get(call - 1) else { break };
                let entries: Vec<&str> = lifecycle.batches[call - 1].iter().map(String::as_str).collect();
                (Ours::dispatch(ours, ia, &entries, limits).0, R::dispatch(theirs, ib, &entries, limits).0)
            };
            compare(name, &format!("{} {limits:?}", label(call)), &a, &b, report);
            report.budgets += 1;
        }
    }
    // The component's other calls, on the props and the states the lifecycle reached.
    let states: Vec<String> = full
        .outcomes
        .iter()
        .filter_map(|(_, b)| match &b.result {
            Ok(Value::Record { fields, .. }) => fields.iter().find(|(k, _)| k == "state").map(|(_, state)| json(state)),
            _ => None,
        })
        .collect();
    let component = &lifecycle.component;
    let mut others: Vec<(String, Box<dyn Fn(CallLimits) -> (Outcome, Outcome)>)> = Vec::new();
    for (at, state) in states.iter().enumerate() {
        let (props, state) = (lifecycle.props.clone(), state.clone());
        others.push((
            format!("evaluate with state {at}"),
            Box::new(move |l| (Ours::evaluate_component(ours, component, &props, &state, l), R::evaluate_component(theirs, component, &props, &state, l))),
        ));
        let state_n = states[at].clone();
        others.push((
            format!("normalize state {at}"),
            Box::new(move |l| (Ours::normalize_state(ours, component, &state_n, l), R::normalize_state(theirs, component, &state_n, l))),
        ));
        let (current, patch) = (states[at].clone(), states.get(at + 1).cloned().unwrap_or_else(|| "{}".to_string()));
        others.push((
            format!("patch state {at}"),
            Box::new(move |l| (Ours::apply_patch(ours, component, &current, &patch, l), R::apply_patch(theirs, component, &current, &patch, l))),
        ));
    }
    let props = lifecycle.props.clone();
    others.push((
        "descriptor".to_string(),
        Box::new(move |l| (Ours::descriptor(ours, component, &props, &[], l), R::descriptor(theirs, component, &props, &[], l))),
    ));
    for (what, call) in &others {
        let (a, b) = call(ample);
        compare(name, &format!("{what} ample"), &a, &b, report);
        report.calls += 1;
        let count = a.operations.unwrap_or(0).max(b.operations.unwrap_or(0));
        for budget in 0..=count {
            let limits = CallLimits { max_operations: Some(budget), max_input_size: None, ..CallLimits::default() };
            let (a, b) = call(limits);
            compare(name, &format!("{what} budget {budget}"), &a, &b, report);
            report.budgets += 1;
        }
    }
}

/// The JSON text of a value as the engines returned it (`$type` as a member).
pub fn json(value: &Value) -> String {
    fn to(value: &Value) -> serde_json::Value {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Int32(i) => serde_json::Value::from(*i),
            Value::Float(bits) => serde_json::Number::from_f64(f64::from_bits(*bits)).map_or(serde_json::Value::Null, serde_json::Value::Number),
            Value::Float32(bits) => {
                serde_json::Number::from_f64(f64::from(f32::from_bits(*bits))).map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::List(items) => serde_json::Value::Array(items.iter().map(to).collect()),
            Value::Record { type_name, fields } => {
                let mut map = serde_json::Map::new();
                if let Some(type_name) = type_name {
                    map.insert("$type".to_string(), serde_json::Value::String(type_name.clone()));
                }
                for (name, value) in fields {
                    map.insert(name.clone(), to(value));
                }
                serde_json::Value::Object(map)
            }
        }
    }
    to(value).to_string()
}
