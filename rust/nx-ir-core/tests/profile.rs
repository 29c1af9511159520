//! The cost profiler (`eval::profile`): a profiled call is the same call. At every budget from 0
//! to past the total, with and without a long-run hook, the profiled call returns the same value,
//! usage and failure as the unprofiled one, the profile's total is the usage's operations, its
//! shares add up, and a budget failure names where it ran out. Calls not asked for are not
//! profiled.

use std::cell::Cell;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::eval::profile::{profile_next_call, profiled, take_profile, Profile};
use nx_ir_core::eval::{
    evaluate_function_hooked, CompiledProgram, HostCall, HostValue, HostValueBuilder, Limits, LongRun, LongRunNext, ModelProgram, Usage,
};

const TEXT: &str = r#"module costs.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [pairs outer squares] components []

record Pair
  left: int required
  right: int required

value base =
  <Pair left=1 right=2 />

function pairs(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <Pair left=i right=(i mul i) />

function inner(n: int) =
  (n add base.left)

function outer(n: int) =
  [inner(n), inner((n add 1)), pairs(n)]

function squares(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i mul i)
"#;

fn program() -> CompiledProgram {
    let module = assemble(TEXT, &AssembleOptions::default()).expect("assembles");
    let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
    let linked = ModelProgram::link(vec![module, prelude]).expect("links");
    CompiledProgram::compile(&linked).expect("compiles")
}

type Outcome = (Result<HostValue, (String, Option<String>)>, Usage, u32);

fn run(program: &CompiledProgram, name: &str, n: i64, limits: &Limits, hook_every: Option<u64>) -> Outcome {
    let hooks = Cell::new(0);
    let hook = || {
        hooks.set(hooks.get() + 1);
        LongRunNext::Again(hook_every.unwrap_or(1))
    };
    let host = HostCall { long_run: hook_every.map(|after| LongRun { after, hook: &hook }), args_size: None };
    let arg = HostValue::Int(n);
    let mut usage = Usage::default();
    let value = evaluate_function_hooked(program, name, &[Some(&arg)], limits, &mut HostValueBuilder, &mut usage, host)
        .map_err(|e| (e.code().to_string(), e.diagnostics[0].declaration.clone()));
    (value, usage, hooks.get())
}

fn shares_add_up(profile: &Profile) {
    assert_eq!(profile.frames.iter().map(|f| f.self_ops).sum::<u64>(), profile.total);
    assert_eq!(profile.kinds.iter().map(|k| k.operations).sum::<u64>(), profile.total);
    let totals = profile.frame_totals();
    let roots: u64 = profile.frames.iter().zip(&totals).filter(|(f, _)| f.parent.is_none()).map(|(_, t)| *t).sum();
    assert_eq!(roots, profile.total);
}

#[test]
fn a_profiled_call_is_the_same_call_at_every_budget() {
    let program = program();
    for (name, n) in [("pairs", 4), ("outer", 3), ("squares", 6)] {
        let full = run(&program, name, n, &Limits::with_budget(u64::MAX), None);
        let total = full.1.operations.expect("counted");
        for budget in 0..=total + 1 {
            for hook in [None, Some(3)] {
                let limits = Limits::with_budget(budget);
                let plain = run(&program, name, n, &limits, hook);
                let (with, profile) = profiled(|| run(&program, name, n, &limits, hook));
                let profile = profile.expect("the call was profiled");
                assert_eq!(with, plain, "{name}({n}) at {budget}, hook {hook:?}");
                assert_eq!(Some(profile.total), plain.1.operations, "{name}({n}) at {budget}");
                shares_add_up(&profile);
                match &plain.0 {
                    Ok(_) => assert!(profile.ran_out.is_none()),
                    Err((code, declaration)) => {
                        assert_eq!(code, "nx-ir-resource-limit", "{name}({n}) at {budget}");
                        let ran_out = profile.ran_out.as_ref().expect("ran out");
                        assert_eq!(profile.path(ran_out.frame).last().copied(), declaration.as_deref());
                    }
                }
            }
        }
    }
}

#[test]
fn paths_calls_and_kinds_are_counted() {
    let program = program();
    let ((value, usage, _), profile) = profiled(|| run(&program, "outer", 3, &Limits::with_budget(10_000), None));
    assert!(value.is_ok());
    let profile = profile.expect("profiled");
    assert_eq!(Some(profile.total), usage.operations);
    let by_name = |name: &str| profile.declarations().into_iter().find(|d| d.declaration == name).expect(name);
    assert_eq!(by_name("costs.nx::outer").calls, 1);
    assert_eq!(by_name("costs.nx::outer").total, profile.total);
    assert_eq!(by_name("costs.nx::inner").calls, 2);
    assert_eq!(by_name("costs.nx::pairs").calls, 1);
    // Each reference to `base` is charged what evaluating it costs (a cached value too), and the
    // profile shows that evaluation: two of `base` (one Pair each) and three in `pairs`.
    assert_eq!(by_name("costs.nx::base").calls, 2);
    assert_eq!(by_name("costs.nx::Pair").calls, 5);
    assert_eq!(by_name("costs.nx::Pair").kind, "record");
    assert_eq!(by_name("costs.nx::base").kind, "value");
    let paths: Vec<Vec<&str>> = (0..profile.frames.len()).map(|f| profile.path(f)).collect();
    assert!(paths.contains(&vec!["costs.nx::outer", "costs.nx::pairs", "costs.nx::Pair"]));
    assert!(paths.contains(&vec!["costs.nx::outer", "costs.nx::inner"]));
    let calls = profile.kinds.iter().find(|k| k.kind == "call").expect("calls");
    assert_eq!(calls.count, 3);
}

#[test]
fn only_the_call_asked_for_is_profiled() {
    let program = program();
    assert!(take_profile().is_none());
    assert!(run(&program, "squares", 3, &Limits::with_budget(100), None).0.is_ok());
    assert!(take_profile().is_none(), "no request, no profile");
    profile_next_call();
    assert!(run(&program, "squares", 3, &Limits::with_budget(100), None).0.is_ok());
    assert!(run(&program, "squares", 50, &Limits::with_budget(1000), None).0.is_ok());
    let profile = take_profile().expect("the first call after the request");
    assert_eq!(profile.frames[0].declaration, "costs.nx::squares");
    assert_eq!(Some(profile.total), run(&program, "squares", 3, &Limits::with_budget(100), None).1.operations);
    // Without a budget nothing is counted for the usage, and the profile still counts.
    let ((_, usage, _), unbudgeted) = profiled(|| run(&program, "squares", 3, &Limits::default(), None));
    assert_eq!(usage.operations, None);
    assert_eq!(unbudgeted.expect("profiled").total, profile.total);
}
