//! Times schema 6 workloads in nx-ir-core and in `nx-ir-runtime` 0.10.0, on the same image, in
//! one process, rounds interleaved: a call whose two arguments are constrained
//! (`bench6.nx::book(3, 2)`) and a `standardMath`-heavy loop (`hypotenuses(n)`: `sqrt(hypot(i,
//! 1.5))` for each `i` below `n`), both under a budget. `benches/test_schema6_speed.py` runs it
//! (release build) beside the same calls from Python.
//!
//! `cargo run --release --ignore-rust-version --manifest-path oracle/Cargo.toml --bin schema6-bench`
//!
//! Prints one JSON object per line: workload, engine, operations, the fastest round's time per
//! call and per operation (ns), and the rounds.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use nx_agent_oracle::programs6::spec;
use nx_ir_core::eval::{evaluate_function, CompiledProgram, HostValue, Limits};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};

const BUDGET: u64 = 1 << 40;

/// The fastest of `rounds` rounds, each `calls` calls of `run`, per call (ns).
fn fastest(rounds: usize, calls: usize, mut run: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..calls {
                run();
            }
            started.elapsed().as_nanos() as f64 / calls as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let source = std::fs::read_to_string(spec::dir().join("bench6.nxir.txt")).expect("bench6.nxir.txt");
    let options = nx_ir_core::assemble::AssembleOptions::default();
    let image = nx_ir_core::assemble::assemble_image(&source, &options).expect("bench6 assembles");

    let ours = {
        let module = Arc::new(PreparedModule::from_vec(image.clone()).expect("nx-ir-core prepares it"));
        let program = Program::link(module, &mut |_| Ok(None), LinkOptions::default()).expect("links");
        CompiledProgram::compile(&program).expect("compiles")
    };
    let theirs = {
        let module = ref6_runtime::PreparedModule::prepare(image).expect("the reference prepares it");
        ref6_runtime::Program::link(&module, |_| None, &ref6_runtime::LinkOptions::default()).expect("links")
    };
    let limits = Limits { max_operations: Some(BUDGET), ..Limits::default() };
    let usage = Arc::new(ref6_runtime::Usage::new());
    let options = ref6_runtime::RuntimeOptions {
        max_operations: Some(BUDGET),
        usage: Some(Arc::clone(&usage)),
        ..ref6_runtime::RuntimeOptions::default()
    };

    let n: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let workloads: [(&str, &str, Vec<i64>, usize, usize); 2] =
        [("constrained call", "book", vec![3, 2], 20_000, 25), ("math loop", "hypotenuses", vec![n], 1, 25)];
    for (workload, function, args, calls, rounds) in workloads {
        let our_args: Vec<HostValue> = args.iter().map(|a| HostValue::Int(*a)).collect();
        let their_args: Vec<ref6_value::NxValue> = args.iter().map(|a| ref6_value::NxValue::Int(*a)).collect();
        let ours_once = evaluate_function(&ours, function, &our_args, &limits).expect("ours evaluates it");
        let their_value = theirs.evaluate_function(function, &their_args, &options).expect("the reference evaluates it");
        let operations = ours_once.usage.operations.expect("a budget was set");
        assert_eq!(Some(operations), usage.operations(), "{workload}: both engines count the same operations");
        if let (HostValue::List(a), ref6_value::NxValue::Array(b)) = (&ours_once.value, &their_value) {
            assert_eq!(a.len(), b.len(), "{workload}: the same result");
        }
        // Rounds interleaved, so a change in the machine's load moves both engines alike.
        let (mut best_ours, mut best_theirs) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..rounds {
            best_ours = best_ours.min(fastest(1, calls, || {
                black_box(evaluate_function(&ours, function, black_box(&our_args), &limits).ok());
            }));
            best_theirs = best_theirs.min(fastest(1, calls, || {
                black_box(theirs.evaluate_function(function, black_box(&their_args), &options).ok());
            }));
        }
        for (engine, ns) in [("nx-ir-core", best_ours), ("nx-ir-runtime 0.10.0", best_theirs)] {
            println!(
                "{}",
                serde_json::json!({
                    "workload": workload,
                    "engine": engine,
                    "operations": operations,
                    "ns_per_call": ns,
                    "ns_per_operation": ns / operations as f64,
                    "rounds": rounds,
                    "calls_per_round": calls,
                })
            );
        }
    }
}
