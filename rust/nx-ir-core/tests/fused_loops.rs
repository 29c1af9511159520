//! A `for` over a range whose body is one integer operator of the loop variable and constants
//! runs fused (`Machine::run_fused`). Each loop here is written twice: as it is, and with an
//! index variable it never reads, which the fused path does not take. The two must agree on
//! everything the runtime reports: value, operations, and for every budget below the total the
//! same failure, at the same declaration; and a long-run hook runs once in both.

use std::cell::Cell;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::error::codes;
use nx_ir_core::eval::{
    evaluate_function_hooked, last_call_work, CompiledProgram, HostCall, HostValue, HostValueBuilder, Limits, LongRun, LongRunNext, ModelProgram, Usage,
};

const RANGE: &str = "<@nx/prelude.nx:Range end=n endInclusive=false start=s />";
const INCLUSIVE: &str = "<@nx/prelude.nx:Range end=n endInclusive=true start=s />";

/// (name, range, body): each body an operator the fused path takes, over `i`, literals and the
/// parameter `k`.
const LOOPS: [(&str, &str, &str); 9] = [
    ("squares", RANGE, "(i mul i)"),
    ("constant", RANGE, "(k add 1)"),
    ("shifted", RANGE, "(i add k)"),
    ("fromLiteral", INCLUSIVE, "(3 sub i)"),
    ("scaled", RANGE, "(k mul i)"),
    ("below", RANGE, "(i lt k)"),
    ("atMost", INCLUSIVE, "(i le 2)"),
    ("above", RANGE, "(i gt k)"),
    ("atLeast", RANGE, "(k ge i)"),
];

/// (name, range, body): loops that join a text literal and the loop variable's text, which run
/// fused (`Machine::run_fused_text`) when the literal is short enough that the join has no
/// length cost: 43 bytes at most, with 20 of digits and sign, under 64. `long` is one byte past
/// that and runs through the general loop in both twins.
const TEXT_LOOPS: [(&str, &str, &str); 5] = [
    ("items", RANGE, r#"("item " concat text<int>(i))"#),
    ("widened", INCLUSIVE, r#"("v=" concat text<float64>(i))"#),
    ("accented", RANGE, r#"("caf\u00e9 " concat text<int>(i))"#),
    ("bare", RANGE, r#"("" concat text<int>(i))"#),
    ("long", RANGE, r#"("a literal of forty-four bytes, one too many!" concat text<int>(i))"#),
];

/// Every loop of both tables.
fn all_loops() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    LOOPS.iter().chain(TEXT_LOOPS.iter())
}

fn program() -> CompiledProgram {
    let mut text = String::from(
        "module fused.nx fingerprint 1\nlinks @nx/prelude.nx version \"1\" fingerprint 16429037828798365428\nrequires ranges-v1\n",
    );
    let names: Vec<String> = all_loops().flat_map(|(name, _, _)| [name.to_string(), format!("{name}Indexed")]).collect();
    text.push_str(&format!("entrypoints functions [{}] components []\n", names.join(" ")));
    for (name, range, body) in all_loops() {
        text.push_str(&format!("\nfunction {name}(s: int, n: int, k: int) =\n  for i in {range} yield\n    {body}\n"));
        text.push_str(&format!("\nfunction {name}Indexed(s: int, n: int, k: int) =\n  for i, at in {range} yield\n    {body}\n"));
    }
    let module = assemble(&text, &AssembleOptions::default()).expect("assembles");
    let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
    let linked = ModelProgram::link(vec![module, prelude]).expect("links");
    CompiledProgram::compile(&linked).expect("compiles")
}

struct Outcome {
    value: Result<HostValue, (String, Option<String>)>,
    usage: Usage,
    hooks: u32,
    /// The evaluator's work counter (`last_call_work`).
    work: u64,
}

fn run(program: &CompiledProgram, name: &str, args: [i64; 3], limits: &Limits, hook_after: Option<u64>) -> Outcome {
    let hooks = Cell::new(0);
    let hook = || {
        hooks.set(hooks.get() + 1);
        LongRunNext::Done
    };
    let host = HostCall { long_run: hook_after.map(|after| LongRun { after, hook: &hook }), args_size: None };
    let args = args.map(HostValue::Int);
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let value = evaluate_function_hooked(program, name, &args, limits, &mut HostValueBuilder, &mut usage, host)
        .map_err(|e| (e.code().to_string(), e.diagnostics[0].declaration.clone()));
    Outcome { value, usage, hooks: hooks.get(), work: last_call_work() }
}

#[test]
fn a_fused_loop_agrees_with_the_general_one_at_every_budget() {
    let program = program();
    for (name, _, _) in all_loops() {
        let indexed = format!("{name}Indexed");
        for args in [[0, 0, 4], [0, 1, 4], [-3, 9, 2], [5, 40, -7], [i64::MAX - 6, i64::MAX - 1, 3], [i64::MIN, i64::MIN + 3, 0]] {
            let full = run(&program, name, args, &Limits::with_budget(u64::MAX), None);
            let general = run(&program, &indexed, args, &Limits::with_budget(u64::MAX), None);
            assert!(full.value.is_ok(), "{name}{args:?}: {:?}", full.value);
            assert_eq!(full.value, general.value, "{name}{args:?}");
            assert_eq!(full.usage, general.usage, "{name}{args:?}");
            // The same work counted (every text joined and item placed), which the work bound holds.
            assert_eq!(full.work, general.work, "{name}{args:?}");
            let total = full.usage.operations.unwrap();
            for budget in 0..total {
                let fused = run(&program, name, args, &Limits::with_budget(budget), None);
                let general = run(&program, &indexed, args, &Limits::with_budget(budget), None);
                let (code, declaration) = fused.value.expect_err("over budget");
                assert_eq!(code, codes::RESOURCE_LIMIT, "{name}{args:?} at {budget}");
                // Every charge of these loops (evaluating and writing) is 1, so a budget runs out
                // with all of it used; but `long`'s texts of 64 bytes and more, which cost 1 more
                // each to join and to write.
                if *name != "long" {
                    assert_eq!(fused.usage.operations, Some(budget), "{name}{args:?} at {budget}");
                }
                let (general_code, general_declaration) = general.value.unwrap_err();
                assert_eq!((code, fused.usage), (general_code, general.usage), "{name}{args:?} at {budget}");
                // The indexed twin is another declaration: the same function by name.
                assert_eq!(declaration.map(|d| d.replace("Indexed", "")), general_declaration.map(|d| d.replace("Indexed", "")));
            }
            // A long-run hook runs as often in both (once when due before the result is written), the
            // result unchanged.
            for after in [0, 1, 2, 3, 4, 5, 7, total / 2, total.saturating_sub(1)] {
                let hooked = run(&program, name, args, &Limits::default(), Some(after));
                let general = run(&program, &indexed, args, &Limits::default(), Some(after));
                assert_eq!(hooked.value, full.value);
                assert_eq!(hooked.hooks, general.hooks, "{name}{args:?} hook after {after}");
                // Due within the evaluation it runs once; due only in the writing, never.
                assert!(hooked.hooks <= 1 && (after > 3 || hooked.hooks == 1), "{name}{args:?} hook after {after}");
            }
        }
    }
}

#[test]
fn a_fused_loop_computes_what_its_operator_does() {
    // Values from the operators' definitions (ir-format §4: 64-bit wrapping integers).
    let program = program();
    let ints = |v: HostValue| match v {
        HostValue::List(items) => items,
        HostValue::Null => Vec::new(),
        other => vec![other],
    };
    let squares = ints(run(&program, "squares", [0, 5, 0], &Limits::default(), None).value.unwrap());
    assert_eq!(squares, [0, 1, 4, 9, 16].map(HostValue::Int));
    let wrapped = ints(run(&program, "shifted", [i64::MAX - 1, i64::MAX, 2], &Limits::default(), None).value.unwrap());
    assert_eq!(wrapped, [HostValue::Int(i64::MIN)]);
    let constant = ints(run(&program, "constant", [0, 3, 6], &Limits::default(), None).value.unwrap());
    assert_eq!(constant, [7, 7, 7].map(HostValue::Int));
    let from = ints(run(&program, "fromLiteral", [0, 4, 0], &Limits::default(), None).value.unwrap());
    assert_eq!(from, [3, 2, 1, 0, -1].map(HostValue::Int));
    let below = ints(run(&program, "below", [0, 4, 2], &Limits::default(), None).value.unwrap());
    assert_eq!(below, [true, true, false, false].map(HostValue::Bool));
    let at_least = ints(run(&program, "atLeast", [0, 4, 2], &Limits::default(), None).value.unwrap());
    assert_eq!(at_least, [true, true, true, false].map(HostValue::Bool));
}

/// Runs `name` with a hook that runs first after `after` operations, then every `every` more,
/// and stops the evaluation on its `stop_at`-th run (1-based) when given; answers the outcome and
/// the hook's runs.
fn run_polled(program: &CompiledProgram, name: &str, args: [i64; 3], limits: &Limits, after: u64, every: u64, stop_at: Option<u32>) -> Outcome {
    let hooks = Cell::new(0u32);
    let hook = || {
        hooks.set(hooks.get() + 1);
        if Some(hooks.get()) == stop_at {
            LongRunNext::Stop
        } else {
            LongRunNext::Again(every)
        }
    };
    let host = HostCall { long_run: Some(LongRun { after, hook: &hook }), args_size: None };
    let args = args.map(HostValue::Int);
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let value = evaluate_function_hooked(program, name, &args, limits, &mut HostValueBuilder, &mut usage, host)
        .map_err(|e| (e.code().to_string(), e.diagnostics[0].declaration.clone()));
    Outcome { value, usage, hooks: hooks.get(), work: last_call_work() }
}

#[test]
fn a_hook_run_again_and_again_changes_no_charge() {
    // A binding polls for signals with a hook that asks to run again every so many operations:
    // the fused loop and its general twin give the same value, usage and failures at every
    // budget, and run the hook as often, whatever the interval.
    let program = program();
    for (name, _, _) in all_loops() {
        let indexed = format!("{name}Indexed");
        let args = [-3, 9, 2];
        let full = run(&program, name, args, &Limits::with_budget(u64::MAX), None);
        let total = full.usage.operations.unwrap();
        for (after, every) in [(0, 1), (1, 2), (2, 3), (5, 7), (1, total)] {
            let polled = run_polled(&program, name, args, &Limits::with_budget(u64::MAX), after, every, None);
            let general = run_polled(&program, &indexed, args, &Limits::with_budget(u64::MAX), after, every, None);
            assert_eq!((&polled.value, polled.usage), (&full.value, full.usage), "{name} polled from {after} every {every}");
            assert_eq!(polled.hooks, general.hooks, "{name} polled from {after} every {every}");
            assert!(polled.hooks >= 1, "{name} polled from {after} every {every}");
            for budget in 0..total {
                let limits = Limits::with_budget(budget);
                let polled = run_polled(&program, name, args, &limits, after, every, None);
                let plain = run(&program, name, args, &limits, None);
                assert_eq!((&polled.value, polled.usage), (&plain.value, plain.usage), "{name} at {budget}, every {every}");
            }
        }
    }
}

#[test]
fn a_hook_that_stops_ends_the_evaluation_with_a_code() {
    let program = program();
    for (name, _, _) in all_loops() {
        let indexed = format!("{name}Indexed");
        let args = [0, 40, 3];
        for stop_at in [1, 2, 5] {
            let stopped = run_polled(&program, name, args, &Limits::with_budget(u64::MAX), 3, 4, Some(stop_at));
            let general = run_polled(&program, &indexed, args, &Limits::with_budget(u64::MAX), 3, 4, Some(stop_at));
            let (code, declaration) = stopped.value.clone().expect_err("stopped");
            assert_eq!(code, codes::INTERRUPTED, "{name} stopped at run {stop_at}");
            assert_eq!(declaration.as_deref(), Some(format!("fused.nx::{name}").as_str()));
            assert_eq!(stopped.hooks, stop_at);
            assert_eq!((general.value.unwrap_err().0, general.usage), (code, stopped.usage), "{name} stopped at run {stop_at}");
            // Stopped where the hook ran: 3 operations, then 4 more for each run after the first.
            assert_eq!(stopped.usage.operations, Some(3 + 4 * u64::from(stop_at - 1)), "{name} stopped at run {stop_at}");
        }
    }
}

#[test]
fn a_fused_text_loop_computes_the_texts_of_its_items() {
    // ir-format §4.4: an integer's text is its decimal digits with a leading '-' when negative;
    // its float64 form is the same for an integer this small.
    let program = program();
    let texts = |name: &str, args: [i64; 3]| match run(&program, name, args, &Limits::default(), None).value.unwrap() {
        HostValue::List(items) => items,
        other => vec![other],
    };
    let strs = |items: &[&str]| items.iter().map(|s| HostValue::Str(s.to_string())).collect::<Vec<_>>();
    assert_eq!(texts("items", [-2, 2, 0]), strs(&["item -2", "item -1", "item 0", "item 1"]));
    assert_eq!(texts("widened", [9, 11, 0]), strs(&["v=9", "v=10", "v=11"]));
    assert_eq!(texts("accented", [0, 2, 0]), strs(&["caf\u{e9} 0", "caf\u{e9} 1"]));
    assert_eq!(texts("bare", [i64::MIN, i64::MIN + 1, 0]), strs(&["-9223372036854775808"]));
    assert_eq!(texts("items", [i64::MAX - 1, i64::MAX, 0]), strs(&["item 9223372036854775806"]));
}

#[test]
fn a_fused_text_loop_meets_the_memory_ceiling_where_the_general_one_does() {
    // Every ceiling from none to past what the call allocates: the same value or failure (the
    // same limit, at the same declaration), the same operations and the same work.
    let program = program();
    for (name, _, _) in TEXT_LOOPS {
        let indexed = format!("{name}Indexed");
        for args in [[0, 12, 0], [-5, 5, 0], [i64::MIN, i64::MIN + 4, 0]] {
            let mut failures = 0;
            for max_memory in 0..1_500 {
                let limits = Limits { max_memory, ..Limits::with_budget(u64::MAX) };
                let fused = run(&program, name, args, &limits, None);
                let general = run(&program, &indexed, args, &limits, None);
                assert_eq!(fused.usage, general.usage, "{name}{args:?} under {max_memory} bytes");
                assert_eq!(fused.work, general.work, "{name}{args:?} under {max_memory} bytes");
                match (&fused.value, &general.value) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}{args:?} under {max_memory} bytes"),
                    (Err((code, declaration)), Err((general_code, general_declaration))) => {
                        failures += 1;
                        assert_eq!(code, codes::RESOURCE_LIMIT, "{name}{args:?} under {max_memory} bytes");
                        assert_eq!(code, general_code);
                        assert_eq!(
                            declaration.as_ref().map(|d| d.replace("Indexed", "")),
                            general_declaration.as_ref().map(|d| d.replace("Indexed", ""))
                        );
                    }
                    (a, b) => panic!("{name}{args:?} under {max_memory} bytes: {a:?} against {b:?}"),
                }
            }
            // The sweep reaches both sides of the ceiling.
            assert!(failures > 0 && failures < 1_500, "{name}{args:?}: {failures} failures");
        }
    }
}
