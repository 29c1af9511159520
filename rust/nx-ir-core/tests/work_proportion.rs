//! Adversarial programs, written as explain text: each ends with the coded error ir-format §6
//! prescribes, within its budget or limit, and the evaluator's work (values copied, allocated,
//! read, written or compared, fields scanned, 64-byte units of text; `eval::last_call_work`)
//! stays within a fixed multiple of the operations charged plus the input size.

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::error::{codes, IrError};
use nx_ir_core::eval::{
    evaluate_function_with, last_call_work, CompiledProgram, HostRecord, HostValue, HostValueBuilder, Limits,
    ModelProgram, Usage,
};

const ADVERSARY: &str = r#"module adversary.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [growList growText recurse grid wrap sameWrapped tree echo member compare] components []

record Pair
  a: object required
  b: object required

record Tree
  left: Tree?
  right: Tree?

function growList(n: int, xs: object) =
  if (n gt 0) then
    growList((n sub 1), [xs, xs])
  else
    xs

function growText(n: int, s: string) =
  if (n gt 0) then
    growText((n sub 1), (s concat s))
  else
    s

function recurse(n: int) =
  recurse((n add 1))

function grid(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    for j in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
      (i mul j)

function wrap(n: int, o: object) =
  if (n gt 0) then
    wrap((n sub 1), <Pair a=o b=o />)
  else
    o

function sameWrapped(n: int) =
  (wrap(n, 1) eq wrap(n, 1))

function tree(n: int, t: Tree): Tree =
  if (n gt 0) then
    tree((n sub 1), <Tree left=t right=t />)
  else
    t

function echo(o: object) =
  o

function member(o: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    o.f099999

function compare(a: object, b: object) =
  (a eq b)
"#;

/// Work units allowed per operation charged or unit of input size. Lookups in records of many
/// fields cost O(log n), so the bound carries that factor for host records of up to 2^20 fields.
const WORK_PER_UNIT: u64 = 48;

fn program() -> CompiledProgram {
    let module = assemble(ADVERSARY, &AssembleOptions::default()).expect("assembles");
    let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
    let linked = ModelProgram::link(vec![module, prelude]).expect("links");
    CompiledProgram::compile(&linked).expect("compiles")
}

struct Outcome {
    result: Result<HostValue, IrError>,
    usage: Usage,
    work: u64,
}

/// Runs `name` with an input limit high enough to measure (so the input size is reported).
fn run(program: &CompiledProgram, name: &str, args: &[HostValue], limits: Limits) -> Outcome {
    let limits = Limits { max_input_size: Some(limits.max_input_size.unwrap_or(1 << 40)), ..limits };
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let result = evaluate_function_with(program, name, &args, &limits, &mut HostValueBuilder, &mut usage);
    Outcome { result, usage, work: last_call_work() }
}

impl Outcome {
    fn proportional(&self, budget: u64) -> &Self {
        let operations = self.usage.operations.expect("a budget was set");
        assert!(operations <= budget, "charged {operations} over the budget {budget}");
        let input = self.usage.input_size.unwrap_or(0);
        assert!(
            self.work <= WORK_PER_UNIT * (operations + input + 1),
            "work {} for {operations} operations and input size {input}",
            self.work
        );
        self
    }

    fn limit(&self, name: &str, value: u64) -> &IrError {
        let error = self.result.as_ref().expect_err("fails");
        assert_eq!(error.code(), codes::RESOURCE_LIMIT, "{error:?}");
        let limit = error.diagnostics[0].limit.as_ref().expect("a limit");
        assert_eq!((limit.name, limit.value), (name, value));
        error
    }
}

fn int(i: i64) -> HostValue {
    HostValue::Int(i)
}

const BUDGET: u64 = 200_000;

#[test]
fn doubling_a_list_stops_at_the_budget() {
    let program = program();
    let small = run(&program, "growList", &[int(10), HostValue::List(vec![int(1)])], Limits::with_budget(BUDGET));
    assert!(matches!(&small.result, Ok(HostValue::List(items)) if items.len() == 1024));
    small.proportional(BUDGET);
    let out = run(&program, "growList", &[int(60), HostValue::List(vec![int(1)])], Limits::with_budget(BUDGET));
    let error = out.limit("maxOperations", BUDGET);
    assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("adversary.nx::growList"));
    out.proportional(BUDGET);
}

#[test]
fn doubling_a_string_stops_at_the_budget() {
    let program = program();
    let out = run(&program, "growText", &[int(60), HostValue::str("x")], Limits::with_budget(BUDGET));
    out.limit("maxOperations", BUDGET);
    out.proportional(BUDGET);
    // Text over 64 code units is what concat and writing charge for (§6.1 charges 3 and 6).
    let ok = run(&program, "growText", &[int(16), HostValue::str("x")], Limits::with_budget(BUDGET));
    assert!(matches!(&ok.result, Ok(HostValue::Str(s)) if s.len() == 1 << 16));
    ok.proportional(BUDGET);
}

#[test]
fn deep_recursion_stops_at_the_call_depth() {
    let program = program();
    let out = run(&program, "recurse", &[int(0)], Limits::with_budget(BUDGET));
    let error = out.limit("maxCallDepth", 100);
    assert!(error.diagnostics[0].declaration.is_none());
    out.proportional(BUDGET);
    let deeper = Limits { max_call_depth: 100_000, ..Limits::with_budget(BUDGET) };
    let out = run(&program, "recurse", &[int(0)], deeper);
    let error = out.result.as_ref().expect_err("fails");
    let name = error.diagnostics[0].limit.as_ref().map(|l| l.name);
    assert!(matches!(name, Some("maxExpressionNesting" | "maxStackBytes")), "{error:?}");
    out.proportional(BUDGET);
}

#[test]
fn nested_loops_over_large_ranges_stop_at_the_budget() {
    let program = program();
    let out = run(&program, "grid", &[int(1_000_000)], Limits::with_budget(BUDGET));
    let error = out.limit("maxOperations", BUDGET);
    assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("adversary.nx::grid"));
    out.proportional(BUDGET);
    let out = run(&program, "grid", &[int(1_000_001)], Limits::with_budget(BUDGET));
    out.limit("maxRangeLength", 1_000_000);
    out.proportional(BUDGET);
}

#[test]
fn one_value_held_many_times_at_many_levels() {
    // wrap(50) holds 2^50 places; writing it is charged per place (§6.1 charge 6).
    let program = program();
    let out = run(&program, "wrap", &[int(50), int(1)], Limits::with_budget(BUDGET));
    out.limit("maxOperations", BUDGET);
    out.proportional(BUDGET);
    // Comparing two such values is charged per pair visited (§4.5.2).
    let out = run(&program, "sameWrapped", &[int(50)], Limits::with_budget(BUDGET));
    let error = out.limit("maxOperations", BUDGET);
    assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("adversary.nx::sameWrapped"));
    out.proportional(BUDGET);
    // Checking one against a declared type is charged per check (§6.1 charge 4).
    let empty_tree = HostValue::Record(HostRecord::new(Some("Tree")));
    let out = run(&program, "tree", &[int(50), empty_tree], Limits::with_budget(BUDGET));
    out.limit("maxOperations", BUDGET);
    out.proportional(BUDGET);
}

#[test]
fn large_host_values_cost_work_in_proportion_to_their_size() {
    let program = program();
    let wide = HostValue::Record(HostRecord {
        type_name: None,
        fields: (0..100_000).map(|i| (format!("f{i:06}"), int(i))).collect(),
    });
    // Reading is free of operations but measured as input size; writing it back is charged.
    let out = run(&program, "echo", std::slice::from_ref(&wide), Limits::with_budget(BUDGET));
    assert!(out.result.is_ok());
    out.proportional(BUDGET);
    let out = run(&program, "echo", std::slice::from_ref(&wide), Limits::with_budget(1000));
    out.limit("maxOperations", 1000);
    out.proportional(1000);
    // A member (the last one stored) looked up a million times in a record of 100,000 fields.
    let out = run(&program, "member", &[wide.clone(), int(1_000_000)], Limits::with_budget(BUDGET));
    let error = out.limit("maxOperations", BUDGET);
    assert_eq!(error.code(), codes::RESOURCE_LIMIT);
    out.proportional(BUDGET);
    // Two equal records of 100,000 fields compared: every field pair is charged.
    let out = run(&program, "compare", &[wide.clone(), wide.clone()], Limits::with_budget(50_000));
    out.limit("maxOperations", 50_000);
    out.proportional(50_000);
    let out = run(&program, "compare", &[wide.clone(), wide.clone()], Limits::with_budget(u64::MAX));
    assert_eq!(out.result.as_ref().ok(), Some(&HostValue::Bool(true)));
    out.proportional(u64::MAX);
    // Over the input limit: refused before anything is read (§6.2).
    let limits = Limits { max_input_size: Some(1000), ..Limits::with_budget(BUDGET) };
    let out = run(&program, "echo", std::slice::from_ref(&wide), limits);
    out.limit("maxInputSize", 1000);
    assert!(out.work <= 1, "read {} units of an input over its limit", out.work);
    // Nested deeper than 256: refused after at most 256 levels are read.
    let mut deep = int(0);
    for _ in 0..100_000 {
        deep = HostValue::List(vec![deep]);
    }
    let out = run(&program, "echo", std::slice::from_ref(&deep), Limits::with_budget(BUDGET));
    out.limit("maxValueNesting", 256);
    assert!(out.work <= 257, "read {} units of a value nested past the limit", out.work);
    drop(deep_drop(deep));
}

/// Drops a deeply nested host value without recursing.
fn deep_drop(mut value: HostValue) -> HostValue {
    loop {
        match value {
            HostValue::List(mut items) if items.len() == 1 => value = items.pop().unwrap_or(HostValue::Null),
            other => return other,
        }
    }
}
