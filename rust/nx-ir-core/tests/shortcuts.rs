//! The evaluator's shortcuts (a record checked again by its charges alone, a single result
//! written as a one-item list without building it, a construction of every field checked in
//! place) against the general path, on the same program compiled without them: the value,
//! the operations, and for every budget below the total the same failure at the same
//! declaration; and a long-run hook runs once in both.

use std::cell::Cell;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::eval::{
    evaluate_function_hooked, CompiledProgram, HostCall, HostValue, HostValueBuilder, Limits, LongRun, LongRunNext, ModelProgram, Usage,
};

const PROGRAM: &str = r#"module shortcuts.nx fingerprint 1
entrypoints functions [plans plansTwo priced optional partial nested measured seatsThrough ints record object] components []

record Plan
  name: string required
  seats: int required
  monthlyPrice: int required

record Priced
  seats: int required
  price: int = 30

record Optional
  seats: int required
  note: string?

record Outer
  inner: Plan required
  tag: string required

record Measure
  width: float32 required
  height: float64 required
  wide: boolean required
  count: int32 required

record Anything
  value: object required

function plans(n: int): Plan* =
  <Plan monthlyPrice=20 name="Team" seats=n />

function plansTwo(n: int): Plan* =
  [<Plan monthlyPrice=20 name="Team" seats=n />, <Plan monthlyPrice=40 name="Office" seats=(n add 10) />]

function priced(n: int): Priced* =
  <Priced seats=n />

function optional(n: int): Optional =
  <Optional note="kept" seats=n />

function partial(n: int): Optional* =
  <Optional seats=n />

function nested(n: int): Outer* =
  <Outer inner=<Plan monthlyPrice=n name="Inner" seats=n /> tag="outer" />

function measured(n: int): Measure* =
  <Measure count=n height=2.5 wide=true width=0.5 />

function seatsOf(plan: Plan): int =
  plan.seats

function seatsThrough(n: int): int =
  seatsOf(<Plan monthlyPrice=1 name="Through" seats=n />)

function ints(n: int): int* =
  (n add 1)

function record(n: int): Plan =
  <Plan monthlyPrice=n name="Single" seats=n />

function object(n: int): Anything* =
  <Anything value=n />
"#;

const ENTRIES: [&str; 11] =
    ["plans", "plansTwo", "priced", "optional", "partial", "nested", "measured", "seatsThrough", "ints", "record", "object"];

fn programs() -> (CompiledProgram, CompiledProgram) {
    let compile = || {
        let module = assemble(PROGRAM, &AssembleOptions::default()).expect("assembles");
        let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
        let linked = ModelProgram::link(vec![module, prelude]).expect("links");
        CompiledProgram::compile(&linked).expect("compiles")
    };
    (compile(), compile().without_shortcuts())
}

#[derive(Debug, PartialEq)]
struct Outcome {
    value: Result<HostValue, (String, Option<String>)>,
    usage: Usage,
    hooks: u32,
}

fn run(program: &CompiledProgram, name: &str, n: i64, limits: &Limits, hook_after: Option<u64>) -> Outcome {
    let hooks = Cell::new(0);
    let hook = || {
        hooks.set(hooks.get() + 1);
        LongRunNext::Done
    };
    let host = HostCall { long_run: hook_after.map(|after| LongRun { after, hook: &hook }), args_size: None };
    let arg = HostValue::Int(n);
    let mut usage = Usage::default();
    let value = evaluate_function_hooked(program, name, &[Some(&arg)], limits, &mut HostValueBuilder, &mut usage, host)
        .map_err(|e| (e.code().to_string(), e.diagnostics[0].declaration.clone()));
    Outcome { value, usage, hooks: hooks.get() }
}

#[test]
fn the_shortcuts_agree_with_the_general_path_at_every_budget() {
    let (fast, general) = programs();
    for name in ENTRIES {
        let full = run(&fast, name, 7, &Limits::with_budget(u64::MAX), None);
        assert!(full.value.is_ok(), "{name}: {:?}", full.value);
        assert_eq!(full, run(&general, name, 7, &Limits::with_budget(u64::MAX), None), "{name}");
        let total = full.usage.operations.unwrap();
        assert!(total > 3, "{name}: {total} operations");
        for budget in 0..total {
            let limits = Limits::with_budget(budget);
            let shortcut = run(&fast, name, 7, &limits, None);
            assert_eq!(shortcut, run(&general, name, 7, &limits, None), "{name} with a budget of {budget}");
            assert!(shortcut.value.is_err(), "{name} with a budget of {budget}");
        }
        // The hook runs from a charge made before the result is written (and never after).
        for after in [1, total / 2, total - 1] {
            let limits = Limits::with_budget(u64::MAX);
            let shortcut = run(&fast, name, 7, &limits, Some(after));
            assert_eq!(shortcut, run(&general, name, 7, &limits, Some(after)), "{name}: hook after {after}");
        }
        assert_eq!(run(&fast, name, 7, &Limits::with_budget(u64::MAX), Some(1)).hooks, 1, "{name}");
    }
}

#[test]
fn a_single_result_is_written_as_a_list_of_it() {
    let (fast, _) = programs();
    let plans = run(&fast, "plans", 5, &Limits::default(), None).value.expect("runs");
    let HostValue::List(items) = plans else { panic!("a list: {plans:?}") };
    assert_eq!(items.len(), 1);
    let HostValue::Record(plan) = &items[0] else { panic!("a record: {:?}", items[0]) };
    assert_eq!(plan.type_name.as_deref(), Some("Plan"));
    let fields: Vec<(&str, &HostValue)> = plan.fields.iter().map(|(k, v)| (k.as_str(), v)).collect();
    assert_eq!(
        fields,
        [("monthlyPrice", &HostValue::Int(20)), ("name", &HostValue::Str("Team".into())), ("seats", &HostValue::Int(5))]
    );
    assert_eq!(run(&fast, "ints", 5, &Limits::default(), None).value, Ok(HostValue::List(vec![HostValue::Int(6)])));
}
