//! Times the work-tool workloads of issue 19 in nx-ir-core and in `nx-ir-runtime` 0.10.0 on the
//! same image (`benches/programs/workloads.nxir.txt`, assembled as schema 6), in one process, the
//! rounds of the two engines interleaved: strings (`"item " + i`), float text (`i * 0.1` as
//! text), a catalog filtered and mapped, nested records, and a 1,000-record list from the host
//! summarised. Each call runs under the budget the Python benches give it (400 n + 1,000
//! operations). Before timing, both engines' results and operation counts are checked equal.
//! `benches/test_peers.py` runs it (release build) beside the same calls from Python.
//!
//! `cargo run --release --ignore-rust-version --manifest-path oracle/Cargo.toml --bin workloads-bench`
//!
//! Prints one JSON object per line: workload, n, engine, operations, the median round's time per
//! call (ns) and per operation, and the rounds.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use nx_agent_oracle::engine::{CallLimits, Engine, Ours, Reference6};
use nx_ir_core::eval::{evaluate_function, CompiledProgram, Limits};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};

/// The budget of a call over `n` items (benches/peers/workloads.py, `loop_budget`).
fn budget(n: u64) -> u64 {
    400 * n + 1_000
}

/// The 1,000 orders `summarize` is given (benches/peers/workloads.py, `orders`).
fn orders_json(count: usize) -> String {
    let orders: Vec<String> = (0..count)
        .map(|i| {
            format!(
                r#"{{"sku": "sku-{i}", "quantity": {}, "price": {}, "customer": {{"name": "customer {}", "tier": {}}}}}"#,
                i % 20,
                i % 97,
                i % 50,
                i % 3
            )
        })
        .collect();
    format!("[{}]", orders.join(", "))
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/programs/workloads.nxir.txt"))
        .expect("benches/programs/workloads.nxir.txt");
    let image = nx_ir_core::assemble::assemble_image(&text, &nx_ir_core::assemble::AssembleOptions::default())
        .expect("the workloads assemble");

    let ours = {
        let module = Arc::new(PreparedModule::from_vec(image.clone()).expect("nx-ir-core prepares it"));
        let program = Program::link(module, &mut |_| Ok(None), LinkOptions::default()).expect("links");
        CompiledProgram::compile(&program).expect("compiles")
    };
    let theirs = {
        let module = ref6_runtime::PreparedModule::prepare(image.clone()).expect("the reference prepares it");
        ref6_runtime::Program::link(&module, |_| None, &ref6_runtime::LinkOptions::default()).expect("links")
    };
    // The comparison goes through the oracle's engine wrappers (results in one compared form).
    let ours_checked = Ours::link(&Ours::prepare(&image).expect("prepares"), &[]).expect("links");
    let theirs_checked = Reference6::link(&Reference6::prepare(&image).expect("prepares"), &[]).expect("links");

    let only: Option<String> = std::env::args().nth(1);
    let profiling = std::env::var_os("NX_BENCH_ONLY_OURS").is_some();
    let orders = orders_json(1_000);
    let workloads: Vec<(&str, &str, u64, String)> = vec![
        ("items", "items", 1_000, "1000".into()),
        ("items", "items", 100_000, "100000".into()),
        ("items", "items", 1_000_000, "1000000".into()),
        ("floats", "floats", 100_000, "100000".into()),
        ("catalog", "catalog", 10_000, "10000".into()),
        ("nested", "nested", 10_000, "10000".into()),
        ("summarize", "summarize", 1_000, orders),
    ];
    for (workload, function, n, arg) in workloads {
        if only.as_deref().is_some_and(|w| w != workload) {
            continue;
        }
        let limits = CallLimits { max_operations: Some(budget(n)), ..CallLimits::default() };
        let a = Ours::evaluate(&ours_checked, function, &[arg.as_str()], limits);
        let b = Reference6::evaluate(&theirs_checked, function, &[arg.as_str()], limits);
        assert!(a.result.is_ok(), "{workload} n={n}: nx-ir-core fails: {:?}", a.result.err());
        assert_eq!(a, b, "{workload} n={n}: both engines give the same result and operations");
        let operations = a.operations.expect("a budget was set");

        let our_args = vec![nx_ir_core::eval::json::from_json(&arg).expect("json")];
        let their_args = vec![ref6_value::NxValue::from_json_str(&arg).expect("json")];
        let our_limits = Limits { max_operations: Some(budget(n)), ..Limits::default() };
        let usage = Arc::new(ref6_runtime::Usage::new());
        let their_options = ref6_runtime::RuntimeOptions {
            max_operations: Some(budget(n)),
            usage: Some(Arc::clone(&usage)),
            ..ref6_runtime::RuntimeOptions::default()
        };
        // About 20 ms of work per round and engine, at least one call.
        let calls = (20_000_000 / (operations * 20)).max(1) as usize;
        let rounds = if operations > 1_000_000 { 11 } else { 31 };
        let (mut ours_times, mut their_times) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let time_ours = || {
                let started = Instant::now();
                for _ in 0..calls {
                    let result = evaluate_function(&ours, function, black_box(&our_args), &our_limits);
                    black_box(result.expect("ours evaluates it"));
                }
                started.elapsed().as_nanos() as f64 / calls as f64
            };
            let time_theirs = || {
                let started = Instant::now();
                for _ in 0..calls {
                    let result = theirs.evaluate_function(function, black_box(&their_args), &their_options);
                    black_box(result.expect("the reference evaluates it"));
                }
                started.elapsed().as_nanos() as f64 / calls as f64
            };
            // In turn first, so neither engine always runs on a warmer cache. With
            // `NX_BENCH_ONLY_OURS` set (for a profile of nx-ir-core), the reference is not timed.
            if profiling {
                ours_times.push(time_ours());
                their_times.push(f64::NAN);
            } else if round % 2 == 0 {
                ours_times.push(time_ours());
                their_times.push(time_theirs());
            } else {
                their_times.push(time_theirs());
                ours_times.push(time_ours());
            }
        }
        for (engine, times) in [("nx-ir-core", ours_times), ("nx-ir-runtime 0.10.0", their_times)] {
            let ns = median(times);
            println!(
                "{}",
                serde_json::json!({
                    "workload": workload,
                    "n": n,
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
