//! The evaluator's shortcuts (a record checked again by its charges alone, a single result
//! written as a one-item list without building it, a construction of every field checked in
//! place) against the general path, on the same program compiled without them: the value,
//! the operations, and for every budget below the total the same failure at the same
//! declaration; and a long-run hook runs once in both.

use std::cell::Cell;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::eval::{
    evaluate_function_hooked, CompiledProgram, HostCall, HostRecord, HostValue, HostValueBuilder, Limits, LongRun, LongRunNext, ModelProgram, Usage,
};

const PROGRAM: &str = r#"module shortcuts.nx fingerprint 1
entrypoints functions [plans plansTwo priced optional partial nested measured seatsThrough ints record object deep deeper holder holderFull] components []

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

record Deep
  outer: Outer required
  count: int required

record Deeper
  deep: Deep required
  label: string required

record Holder
  optional: Optional required
  seats: int required

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

function deep(n: int): Deep* =
  <Deep count=n outer=<Outer inner=<Plan monthlyPrice=n name="Deep" seats=n /> tag="deep" /> />

function deeper(n: int): Deeper* =
  <Deeper deep=<Deep count=n outer=<Outer inner=<Plan monthlyPrice=n name="Deeper" seats=n /> tag="deeper" /> /> label="deeper" />

function holder(n: int): Holder* =
  <Holder optional=<Optional seats=n /> seats=n />

function holderFull(n: int): Holder* =
  <Holder optional=<Optional note="kept" seats=n /> seats=n />
"#;

const ENTRIES: [&str; 15] = [
    "plans",
    "plansTwo",
    "priced",
    "optional",
    "partial",
    "nested",
    "measured",
    "seatsThrough",
    "ints",
    "record",
    "object",
    "deep",
    "deeper",
    "holder",
    "holderFull",
];

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
    /// The work counter's units (ir-format's bound: work in proportion to the operations).
    work: u64,
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
    Outcome { value, usage, hooks: hooks.get(), work: nx_ir_core::eval::last_call_work() }
}

#[test]
fn the_shortcuts_agree_with_the_general_path_at_every_budget() {
    let (fast, general) = programs();
    for name in ENTRIES {
        let full = run(&fast, name, 7, &Limits::with_budget(u64::MAX), None);
        assert!(full.value.is_ok(), "{name}: {:?}", full.value);
        // The same value and usage; the work counted may be less (a construction checked in
        // place is not checked again), never more.
        let slow = run(&general, name, 7, &Limits::with_budget(u64::MAX), None);
        assert!(full.work <= slow.work, "{name}: {} > {} units of work", full.work, slow.work);
        assert_eq!(full, Outcome { work: full.work, ..slow }, "{name}");
        let total = full.usage.operations.unwrap();
        assert!(total > 3, "{name}: {total} operations");
        for budget in 0..total {
            let limits = Limits::with_budget(budget);
            // The work of a call stopped by its budget is not compared: a recheck counts its
            // fields' work before it charges them, so a call stopped partway may count more.
            let shortcut = Outcome { work: 0, ..run(&fast, name, 7, &limits, None) };
            assert_eq!(shortcut, Outcome { work: 0, ..run(&general, name, 7, &limits, None) }, "{name} with a budget of {budget}");
            assert!(shortcut.value.is_err(), "{name} with a budget of {budget}");
        }
        // The hook runs from a charge made before the result is written (and never after).
        for after in [1, total / 2, total - 1] {
            let limits = Limits::with_budget(u64::MAX);
            let shortcut = Outcome { work: 0, ..run(&fast, name, 7, &limits, Some(after)) };
            assert_eq!(shortcut, Outcome { work: 0, ..run(&general, name, 7, &limits, Some(after)) }, "{name}: hook after {after}");
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

// ---- Host arguments read in their declared layout (`Machine::read_host_as`) --------------------

const ORDERS: &str = r#"module orders.nx fingerprint 1
entrypoints functions [worth first name wrapped note kinds anything named codes ledger chain] components []

record Customer
  name: string required
  tier: int required

record Order
  sku: string required
  quantity: int required
  price: int required
  customer: Customer required

record Noted
  label: string required
  note: string?
  weight: float required

record Kinds
  flag: boolean required
  tags: string* required
  small: int32 required

record Region
  code: string required

record Branch
  region: Region required
  seats: int required

record Account
  branch: Branch required
  id: int required

record Ledger
  account: Account required
  total: float64 required
  open: boolean required

record Link
  value: int required
  next: Link?

function worth(orders: Order*) =
  for o in orders yield
    if ((o.quantity mul o.price) gt 900) then
      o.sku

function first(order: Order) =
  order

function name(order: Order?) =
  order.customer.name

function wrapped(orders: Order+) =
  orders

function note(noted: Noted) =
  noted

function kinds(kinds: Kinds) =
  kinds

function anything(value: object) =
  value

function named(order: Order, extra: int) =
  order.customer

function codes(ledgers: Ledger*) =
  for l in ledgers yield
    l.account.branch.region.code

function ledger(ledger: Ledger) =
  ledger

function chain(link: Link) =
  link.value
"#;

fn orders_programs() -> (CompiledProgram, CompiledProgram) {
    let compile = || {
        let module = assemble(ORDERS, &AssembleOptions::default()).expect("assembles");
        let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
        let linked = ModelProgram::link(vec![module, prelude]).expect("links");
        CompiledProgram::compile(&linked).expect("compiles")
    };
    (compile(), compile().without_shortcuts())
}

type Failure = (String, String, Option<String>, Option<String>);

/// A call's value (or its failure: code, message, declaration, argument) and usage.
fn call(program: &CompiledProgram, name: &str, args: &[HostValue], limits: &Limits) -> (Result<HostValue, Failure>, Usage) {
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let value = evaluate_function_hooked(program, name, &args, limits, &mut HostValueBuilder, &mut usage, HostCall::default())
        .map_err(|e| {
            let d = &e.diagnostics[0];
            (e.code().to_string(), d.message.clone(), d.declaration.clone(), d.argument.clone())
        });
    (value, usage)
}

fn customer(name: &str, tier: HostValue) -> HostValue {
    HostValue::Record(HostRecord::new(None).with("name", HostValue::str(name)).with("tier", tier))
}

fn order(sku: &str, quantity: i64, price: i64) -> HostRecord {
    HostRecord::new(None)
        .with("sku", HostValue::str(sku))
        .with("quantity", HostValue::Int(quantity))
        .with("price", HostValue::Int(price))
        .with("customer", customer("Ada", HostValue::Int(1)))
}

/// Arguments for the entrypoints of `ORDERS`: records in declaration order and not, every field
/// or some, extra and repeated members, a `$type` of their own or another, values that
/// normalizing converts (an integral float for an int) or refuses, nested and optional records.
fn order_cases() -> Vec<(&'static str, Vec<HostValue>)> {
    let plain = || HostValue::Record(order("a", 30, 31));
    let reordered = HostValue::Record(
        HostRecord::new(None)
            .with("customer", customer("Bo", HostValue::Int(2)))
            .with("price", HostValue::Int(50))
            .with("sku", HostValue::str("b"))
            .with("quantity", HostValue::Int(19)),
    );
    let mut typed = order("c", 2, 3);
    typed.type_name = Some("Order".into());
    let mut other_type = order("d", 2, 3);
    other_type.type_name = Some("Customer".into());
    let mut float_quantity = order("e", 0, 950);
    float_quantity.fields[1].1 = HostValue::Float(2.0);
    let mut fractional = order("f", 0, 950);
    fractional.fields[1].1 = HostValue::Float(2.5);
    let mut missing = order("g", 1, 1);
    missing.fields.remove(2);
    let unknown = HostValue::Record(order("h", 1, 1).with("discount", HostValue::Int(3)));
    let repeated = HostValue::Record(order("i", 40, 40).with("sku", HostValue::str("again")));
    let mut float_tier = order("j", 31, 31);
    float_tier.fields[3].1 = customer("Cy", HostValue::Float(1.0));
    let mut null_customer = order("k", 31, 31);
    null_customer.fields[3].1 = HostValue::Null;
    let mut listed_customer = order("l", 31, 31);
    listed_customer.fields[3].1 = HostValue::List(vec![customer("Di", HostValue::Int(0))]);
    let mut typed_customer = order("m", 31, 31);
    typed_customer.fields[3].1 = {
        let mut c = HostRecord::new(Some("Customer")).with("name", HostValue::str("Ed")).with("tier", HostValue::Int(4));
        c.type_name = Some("Customer".into());
        HostValue::Record(c)
    };
    let noted = |note: Option<HostValue>, weight: HostValue| {
        let mut record = HostRecord::new(None).with("label", HostValue::str("n"));
        if let Some(note) = note {
            record = record.with("note", note);
        }
        HostValue::Record(record.with("weight", weight))
    };
    let kinds = |tags: HostValue, small: HostValue| {
        HostValue::Record(HostRecord::new(None).with("flag", HostValue::Bool(true)).with("tags", tags).with("small", small))
    };
    let texts = |items: &[&str]| HostValue::List(items.iter().map(|t| HostValue::str(*t)).collect());
    // Records four levels deep (past the two a record's fields are measured to), as read and
    // with one level converted, missing a field or typed as another.
    let region = |code: HostValue| HostValue::Record(HostRecord::new(None).with("code", code));
    let branch = |region: HostValue| HostValue::Record(HostRecord::new(None).with("region", region).with("seats", HostValue::Int(3)));
    let account = |branch: HostValue| HostValue::Record(HostRecord::new(None).with("branch", branch).with("id", HostValue::Int(7)));
    let ledger = |account: HostValue, total: HostValue| {
        HostValue::Record(HostRecord::new(None).with("account", account).with("total", total).with("open", HostValue::Bool(true)))
    };
    let deep = |code: &str| ledger(account(branch(region(HostValue::str(code)))), HostValue::Float(1.5));
    let int_total = ledger(account(branch(region(HostValue::str("i")))), HostValue::Int(2));
    let bare_region = ledger(account(branch(HostValue::Record(HostRecord::new(None)))), HostValue::Float(1.5));
    let typed_region = {
        let region = HostValue::Record(HostRecord::new(Some("Branch")).with("code", HostValue::str("t")));
        ledger(account(branch(region)), HostValue::Float(1.5))
    };
    let number_code = ledger(account(branch(region(HostValue::Int(5)))), HostValue::Float(1.5));
    let link = |value: i64, next: Option<HostValue>| {
        let record = HostRecord::new(None).with("value", HostValue::Int(value));
        HostValue::Record(match next {
            Some(next) => record.with("next", next),
            None => record,
        })
    };
    vec![
        ("codes", vec![HostValue::List(vec![deep("a"), deep("b"), deep("c")])]),
        ("codes", vec![HostValue::List(vec![deep("a"), int_total.clone()])]),
        ("codes", vec![HostValue::List(vec![deep("a"), bare_region.clone()])]),
        ("codes", vec![HostValue::List(vec![typed_region.clone(), deep("a")])]),
        ("codes", vec![HostValue::List(vec![deep("a"), number_code])]),
        ("ledger", vec![deep("d")]),
        ("ledger", vec![int_total]),
        ("ledger", vec![bare_region]),
        ("ledger", vec![typed_region]),
        ("chain", vec![link(1, None)]),
        ("chain", vec![link(1, Some(link(2, Some(link(3, None)))))]),
        ("worth", vec![HostValue::List(vec![plain(), reordered.clone(), HostValue::Record(typed.clone())])]),
        ("worth", vec![HostValue::List(vec![plain(), HostValue::Record(float_quantity.clone())])]),
        ("worth", vec![HostValue::List(vec![plain(), HostValue::Record(fractional)])]),
        ("worth", vec![HostValue::List(vec![plain(), HostValue::Record(missing)])]),
        ("worth", vec![HostValue::List(vec![unknown.clone(), plain()])]),
        ("worth", vec![HostValue::List(vec![repeated.clone()])]),
        ("worth", vec![HostValue::List(vec![HostValue::Record(other_type.clone())])]),
        ("worth", vec![HostValue::List(vec![HostValue::Record(float_tier.clone()), plain()])]),
        ("worth", vec![HostValue::List(vec![HostValue::Record(null_customer.clone())])]),
        ("worth", vec![HostValue::List(vec![HostValue::Record(listed_customer.clone())])]),
        ("worth", vec![HostValue::List(vec![HostValue::Record(typed_customer.clone()), plain()])]),
        ("worth", vec![plain()]),
        ("worth", vec![HostValue::List(vec![])]),
        ("worth", vec![HostValue::Null]),
        ("worth", vec![HostValue::List(vec![plain(), HostValue::Int(3)])]),
        ("first", vec![plain()]),
        ("first", vec![reordered.clone()]),
        ("first", vec![HostValue::Record(typed)]),
        ("first", vec![HostValue::Record(float_quantity)]),
        ("first", vec![HostValue::Record(float_tier)]),
        ("first", vec![HostValue::Record(typed_customer)]),
        ("first", vec![HostValue::List(vec![plain()])]),
        ("first", vec![unknown]),
        ("first", vec![repeated]),
        ("first", vec![HostValue::Record(other_type)]),
        ("first", vec![HostValue::Record(null_customer)]),
        ("first", vec![HostValue::Record(listed_customer)]),
        ("first", vec![plain(), HostValue::Int(1)]),
        ("name", vec![plain()]),
        ("name", vec![HostValue::Null]),
        ("wrapped", vec![plain()]),
        ("wrapped", vec![HostValue::List(vec![reordered, plain()])]),
        ("note", vec![noted(None, HostValue::Float(0.5))]),
        ("note", vec![noted(Some(HostValue::str("kept")), HostValue::Float(0.5))]),
        ("note", vec![noted(Some(HostValue::Null), HostValue::Float(0.5))]),
        ("note", vec![noted(Some(HostValue::str("kept")), HostValue::Int(2))]),
        ("kinds", vec![kinds(texts(&["x", "y"]), HostValue::Int(3))]),
        ("kinds", vec![kinds(texts(&[]), HostValue::Int(3))]),
        ("kinds", vec![kinds(HostValue::str("one"), HostValue::Int(3))]),
        ("kinds", vec![kinds(texts(&["x"]), HostValue::Int(1 << 40))]),
        ("anything", vec![plain()]),
        ("anything", vec![HostValue::List(vec![plain(), HostValue::Null])]),
    ]
}

#[test]
fn host_records_read_in_their_layout_agree_with_the_general_path_at_every_budget() {
    let (fast, general) = orders_programs();
    for (name, args) in order_cases() {
        let full = call(&fast, name, &args, &Limits::with_budget(u64::MAX));
        assert_eq!(full, call(&general, name, &args, &Limits::with_budget(u64::MAX)), "{name} {args:?}");
        let total = full.1.operations.expect("a budget was set");
        for budget in 0..total {
            let limits = Limits::with_budget(budget);
            let shortcut = call(&fast, name, &args, &limits);
            assert_eq!(shortcut, call(&general, name, &args, &limits), "{name} {args:?} with a budget of {budget}");
            assert!(shortcut.0.is_err(), "{name} {args:?} with a budget of {budget}");
        }
        // Without a budget, and with an input limit (measured before anything is read).
        assert_eq!(call(&fast, name, &args, &Limits::default()), call(&general, name, &args, &Limits::default()), "{name}");
        let measured = Limits { max_input_size: Some(40), ..Limits::default() };
        assert_eq!(call(&fast, name, &args, &measured), call(&general, name, &args, &measured), "{name} {args:?} measured");
    }
}

#[test]
fn host_records_read_in_their_layout_give_what_the_program_computes() {
    let (fast, _) = orders_programs();
    let orders = HostValue::List(vec![
        HostValue::Record(order("cheap", 2, 3)),
        HostValue::Record(order("dear", 30, 31)),
        HostValue::Record(order("edge", 30, 30)),
        HostValue::Record(order("over", 19, 48)),
    ]);
    // 30 × 31 = 930 and 19 × 48 = 912 are worth more than 900; 6 and 900 are not.
    let (value, _) = call(&fast, "worth", &[orders], &Limits::default());
    assert_eq!(value, Ok(HostValue::List(vec![HostValue::str("dear"), HostValue::str("over")])));
    // A record comes back with its declared type and its fields in byte order of their names,
    // whatever order the host gave them in.
    let given = HostValue::Record(
        HostRecord::new(None)
            .with("customer", customer("Bo", HostValue::Int(2)))
            .with("price", HostValue::Int(50))
            .with("sku", HostValue::str("b"))
            .with("quantity", HostValue::Int(19)),
    );
    let (value, _) = call(&fast, "first", &[given], &Limits::default());
    let HostValue::Record(record) = value.expect("runs") else { panic!("a record") };
    assert_eq!(record.type_name.as_deref(), Some("Order"));
    let names: Vec<&str> = record.fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["customer", "price", "quantity", "sku"]);
    let Some(HostValue::Record(nested)) = record.get("customer") else { panic!("a nested record") };
    assert_eq!(nested.type_name.as_deref(), Some("Customer"));
    assert_eq!(nested.get("name"), Some(&HostValue::str("Bo")));
    // A member the declaration does not have is refused by name.
    let unknown = HostValue::Record(order("h", 1, 1).with("discount", HostValue::Int(3)));
    let (value, _) = call(&fast, "first", &[unknown], &Limits::default());
    let (code, message, _, argument) = value.expect_err("refused");
    assert_eq!(code, "nx-ir-boundary-field");
    assert!(message.contains("'discount'"), "{message}");
    assert_eq!(argument.as_deref(), Some("order"));
}
