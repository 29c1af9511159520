//! Times the component lifecycle in nx-ir-core and in `nx-ir-runtime` 0.10.0 on the same image
//! (the bundled conversation flow, `python/nx_agent/examples/flow.nx.nxir.txt`, schema 6), in
//! one process, rounds interleaved: `initialize` alone, and a question-flow run (initialize and
//! 30 dispatches: six times through the four questions and the restart), each under a budget.
//! Both engines' outputs, effects, states and operation counts are checked equal first.
//! `benches/test_flow_speed.py` runs it (release build) beside the same run from Python.
//!
//! `cargo run --release --ignore-rust-version --manifest-path oracle/Cargo.toml --bin flow-bench`
//!
//! Prints one JSON object per line: workload, engine, operations, the fastest round's time per
//! run (ns), and the rounds.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use nx_agent_oracle::engine::{CallLimits, Engine, Ours, Reference6};

const BUDGET: u64 = 1 << 40;

/// The 30 dispatches: (token number, action JSON), five per pass through the flow.
fn script() -> Vec<(usize, &'static str)> {
    let pass = [
        (1, r#"{"$type": "TextAnswer.Submitted", "text": "Ada"}"#),
        (2, r#"{"$type": "Option.Picked"}"#),
        (3, r#"{"$type": "Option.Picked"}"#),
        (1, r#"{"$type": "Option.Picked"}"#),
        (1, r#"{"$type": "Restart.Pressed"}"#),
    ];
    (0..6).flat_map(|_| pass).collect()
}

fn entry(generation: usize, token: usize, action: &str) -> String {
    format!(r#"{{"$type": "ActionHandlerInvocation", "token": "h{generation}-{token}", "action": {action}}}"#)
}

/// The whole run in engine `E`: the operations of each call.
fn run<E: Engine>(program: &E::Program, entries: &[String]) -> Vec<Option<u64>> {
    let limits = CallLimits { max_operations: Some(BUDGET), max_input_size: None, ..CallLimits::default() };
    let (outcome, instance) = E::initialize(program, "Flow", "{}", limits);
    let mut operations = vec![outcome.operations];
    let mut instance = instance.expect("initializes");
    for entry in entries {
        let (outcome, next) = E::dispatch(program, &instance, &[entry.as_str()], limits);
        operations.push(outcome.operations);
        instance = next.unwrap_or_else(|| panic!("{} dispatches: {:?}", E::NAME, outcome.result));
    }
    operations
}

fn fastest(rounds: usize, mut run: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed().as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../python/nx_agent/examples/flow.nx.nxir.txt"))
        .expect("the bundled flow");
    let options = nx_ir_core::assemble::AssembleOptions { source: None, version: "1".into(), schema: 6 };
    let image = nx_ir_core::assemble::assemble_image(&text, &options).expect("the flow assembles");
    let ours = Ours::link(&Ours::prepare(&image).expect("prepares"), &[]).expect("links");
    let theirs = Reference6::link(&Reference6::prepare(&image).expect("prepares"), &[]).expect("links");
    let entries: Vec<String> = script().iter().enumerate().map(|(at, (token, action))| entry(at + 1, *token, action)).collect();

    // The same run in both engines, compared call by call in full.
    let limits = CallLimits { max_operations: Some(BUDGET), max_input_size: None, ..CallLimits::default() };
    let (a, mut ia) = Ours::initialize(&ours, "Flow", "{}", limits);
    let (b, mut ib) = Reference6::initialize(&theirs, "Flow", "{}", limits);
    assert_eq!(a, b, "initialize");
    for entry in &entries {
        let (a, na) = Ours::dispatch(&ours, ia.as_ref().expect("an instance"), &[entry.as_str()], limits);
        let (b, nb) = Reference6::dispatch(&theirs, ib.as_ref().expect("an instance"), &[entry.as_str()], limits);
        assert_eq!(a, b, "{entry}");
        (ia, ib) = (na, nb);
    }
    let operations: u64 = run::<Ours>(&ours, &entries).iter().flatten().sum();
    let init_operations = run::<Ours>(&ours, &[])[0].unwrap_or(0);

    // Direct calls for the timing (the engine wrappers convert outcomes for comparison).
    let our_limits = nx_ir_core::eval::Limits { max_operations: Some(BUDGET), ..Default::default() };
    let usage = Arc::new(ref6_runtime::Usage::new());
    let their_options =
        ref6_runtime::RuntimeOptions { max_operations: Some(BUDGET), usage: Some(Arc::clone(&usage)), ..Default::default() };
    let our_entries: Vec<nx_ir_core::eval::HostValue> =
        entries.iter().map(|e| nx_ir_core::eval::json::from_json(e).expect("json")).collect();
    let their_entries: Vec<ref6_value::NxValue> = entries.iter().map(|e| ref6_value::NxValue::from_json_str(e).expect("json")).collect();
    let empty = std::collections::BTreeMap::new();
    let ours_init = || {
        nx_ir_core::eval::component::initialize_component(&ours, "Flow", &[], Default::default(), &our_limits).expect("initializes").0
    };
    let theirs_init = || theirs.initialize_component("Flow", &empty, &Default::default(), &their_options).expect("initializes");
    let ours_run = || {
        let mut instance = ours_init().instance;
        for entry in &our_entries {
            instance = nx_ir_core::eval::component::dispatch_component_actions(&ours, &instance, &[entry], &our_limits)
                .expect("dispatches")
                .0
                .instance;
        }
        black_box(instance);
    };
    let theirs_run = || {
        let mut instance = theirs_init().instance;
        for entry in &their_entries {
            instance = theirs.dispatch_component_actions(&instance, std::slice::from_ref(entry), &their_options).expect("dispatches").instance;
        }
        black_box(instance);
    };
    let rounds = 40;
    let (mut init_ours, mut init_theirs, mut run_ours, mut run_theirs) = (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        init_ours = init_ours.min(fastest(1, || {
            for _ in 0..200 {
                black_box(ours_init());
            }
        }) / 200.0);
        init_theirs = init_theirs.min(fastest(1, || {
            for _ in 0..200 {
                black_box(theirs_init());
            }
        }) / 200.0);
        run_ours = run_ours.min(fastest(1, || {
            for _ in 0..10 {
                ours_run();
            }
        }) / 10.0);
        run_theirs = run_theirs.min(fastest(1, || {
            for _ in 0..10 {
                theirs_run();
            }
        }) / 10.0);
    }
    for (workload, engine, ns, ops) in [
        ("initialize", "nx-ir-core", init_ours, init_operations),
        ("initialize", "nx-ir-runtime 0.10.0", init_theirs, init_operations),
        ("question-flow run", "nx-ir-core", run_ours, operations),
        ("question-flow run", "nx-ir-runtime 0.10.0", run_theirs, operations),
    ] {
        println!(
            "{}",
            serde_json::json!({"workload": workload, "engine": engine, "operations": ops, "ns_per_run": ns, "rounds": rounds})
        );
    }
}
