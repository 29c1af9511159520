//! Unit tests over hand-built modules (the corpus tests live in `tests/eval_conformance.rs`).
//! Expected numbers come from ir-format §7.1.

use super::*;
use crate::model::{kinds, Constant, Decl, Field, Loop, Module, ModuleEntry, Node, Prop, Ref, Type};

/// A tiny builder of model modules for tests.
struct Builder {
    module: Module,
}

impl Builder {
    fn new(identity: &str) -> Self {
        let mut b = Builder {
            module: Module {
                schema: 5,
                strings: Vec::new(),
                abi: 0,
                features: Vec::new(),
                modules: Vec::new(),
                function_entrypoints: Vec::new(),
                component_entrypoints: Vec::new(),
                types: Vec::new(),
                constants: Vec::new(),
                nodes: Vec::new(),
                declarations: Vec::new(),
                debug: None,
            },
        };
        let id = b.s(identity);
        let version = b.s("1");
        b.module.abi = b.s(kinds::RUNTIME_ABI);
        b.module.modules.push(ModuleEntry { identity: id, version, fingerprint: 0 });
        b
    }

    fn s(&mut self, text: &str) -> u32 {
        if let Some(i) = self.module.strings.iter().position(|s| s == text) {
            return i as u32;
        }
        self.module.strings.push(text.to_string());
        (self.module.strings.len() - 1) as u32
    }

    fn link(&mut self, identity: &str) -> u32 {
        let id = self.s(identity);
        let version = self.s("1");
        self.module.modules.push(ModuleEntry { identity: id, version, fingerprint: 0 });
        (self.module.modules.len() - 1) as u32
    }

    fn ty(&mut self, ty: Type) -> u32 {
        self.module.types.push(ty);
        (self.module.types.len() - 1) as u32
    }

    fn prim(&mut self, name: &str) -> u32 {
        let name = self.s(name);
        self.ty(Type::Primitive { name })
    }

    fn node(&mut self, node: Node) -> u32 {
        self.module.nodes.push(node);
        (self.module.nodes.len() - 1) as u32
    }

    fn int(&mut self, value: i64) -> u32 {
        self.module.constants.push(Constant::Int(value));
        let constant = (self.module.constants.len() - 1) as u32;
        self.node(Node::Number { constant })
    }

    fn slot(&mut self, slot: u32, name: &str) -> u32 {
        let name = self.s(name);
        self.node(Node::Slot { slot, name })
    }

    fn range(&mut self, prelude: u32, start: i64, end: i64) -> u32 {
        let e = self.int(end);
        self.range_to(prelude, start, e)
    }

    /// `start..end` (end excluded), its end the node `end`.
    fn range_to(&mut self, prelude: u32, start: i64, end: u32) -> u32 {
        let inclusive = self.node(Node::Bool { value: 0 });
        let s = self.int(start);
        let range = self.s("Range");
        let (pe, pi, ps) = (self.s("end"), self.s("endInclusive"), self.s("start"));
        self.node(Node::Record {
            target: Ref { slot: prelude, name: range },
            props: vec![Prop { name: pe, value: end }, Prop { name: pi, value: inclusive }, Prop { name: ps, value: s }],
            content: vec![],
        })
    }

    fn function(&mut self, name: &str, params: Vec<(&str, u32, u32)>, body: u32, result: Option<u32>) {
        let name = self.s(name);
        let params = params
            .into_iter()
            .map(|(p, ty, flags)| Field { name: self.s(p), ty, default: None, flags })
            .collect();
        self.module.declarations.push(Decl::Function { name, params, body, result, result_flags: 0 });
        self.module.function_entrypoints.push((self.module.declarations.len() - 1) as u32);
    }

    fn program(self) -> CompiledProgram {
        let linked = ModelProgram::link({
            let prelude = crate::prelude::prelude_model(self.module.schema).expect("the prelude assembles");
            vec![self.module, prelude]
        }).expect("links");
        CompiledProgram::compile(&linked).expect("compiles")
    }
}

fn cost(program: &CompiledProgram, name: &str, args: &[HostValue]) -> (HostValue, u64) {
    let result = evaluate_function(program, name, args, &Limits::with_budget(u64::MAX)).expect("evaluates");
    let ops = result.usage.operations.expect("counted");
    // The exact count: it succeeds at the count and fails one below.
    let again = evaluate_function(program, name, args, &Limits::with_budget(ops)).expect("succeeds at the count");
    assert_eq!(again.value, result.value);
    if ops > 0 {
        let error = evaluate_function(program, name, args, &Limits::with_budget(ops - 1)).expect_err("fails below");
        assert_eq!(error.code(), codes::RESOURCE_LIMIT);
        assert_eq!(error.diagnostics[0].limit.as_ref().map(|l| l.name), Some("maxOperations"));
        assert!(error.diagnostics[0].argument.is_none());
    }
    (result.value, ops)
}

fn arithmetic_program() -> CompiledProgram {
    let mut b = Builder::new("main.nx");
    let prelude = b.link("@nx/prelude.nx");
    let int = b.prim("int");
    // add(a:int, b:int) = { a + b }
    let a = b.slot(0, "a");
    let bb = b.slot(1, "b");
    let sum = b.node(Node::Binary { op: 0, lhs: a, rhs: bb });
    b.function("add", vec![("a", int, 0), ("b", int, 0)], sum, None);
    // squares() = { for i in 0..4 { i * i } }
    let range = b.range(prelude, 0, 4);
    let i1 = b.slot(0, "i");
    let i2 = b.slot(0, "i");
    let square = b.node(Node::Binary { op: 2, lhs: i1, rhs: i2 });
    let item = b.s("i");
    let body = b.node(Node::ForRange(Loop { item_slot: 0, item_name: item, index_slot: None, index_name: None, iterable: range, body: square }));
    b.function("squares", vec![], body, None);
    // wide(n) = { for i in 0..n { i * i } }
    let n = b.slot(0, "n");
    let range = b.range_to(prelude, 0, n);
    let i1 = b.slot(1, "i");
    let i2 = b.slot(1, "i");
    let square = b.node(Node::Binary { op: 2, lhs: i1, rhs: i2 });
    let body = b.node(Node::ForRange(Loop { item_slot: 1, item_name: item, index_slot: None, index_name: None, iterable: range, body: square }));
    b.function("wide", vec![("n", int, 0)], body, None);
    // ratio(n:int): int = { n / 0 }   (idiv)
    let n = b.slot(0, "n");
    let zero = b.int(0);
    let ratio = b.node(Node::Binary { op: 4, lhs: n, rhs: zero });
    b.function("ratio", vec![("n", int, 0)], ratio, Some(int));
    b.program()
}

#[test]
fn add_costs_six() {
    let program = arithmetic_program();
    let (value, ops) = cost(&program, "add", &[HostValue::Int(1), HostValue::Int(2)]);
    assert_eq!(value, HostValue::Int(3));
    assert_eq!(ops, 6);
}

#[test]
fn squares_cost_twenty_nine() {
    let program = arithmetic_program();
    let (value, ops) = cost(&program, "squares", &[]);
    assert_eq!(value, HostValue::List(vec![HostValue::Int(0), HostValue::Int(1), HostValue::Int(4), HostValue::Int(9)]));
    assert_eq!(ops, 29);
}

#[test]
fn a_million_squares_cost_five_million_and_nine() {
    // ir-format §7.2: 1 + 7 + 3,000,000 + 1,000,000 placed + 1,000,001 written, plus here the
    // parameter check of `n` and the slot read of `n` in place of a literal (same count).
    let program = arithmetic_program();
    let result = evaluate_function(&program, "wide", &[HostValue::Int(1_000_000)], &Limits::with_budget(u64::MAX)).unwrap();
    assert_eq!(result.usage.operations, Some(5_000_009 + 1));
    let over = evaluate_function(&program, "wide", &[HostValue::Int(2_000_000)], &Limits::default()).unwrap_err();
    assert_eq!(over.code(), codes::RESOURCE_LIMIT);
    let limit = over.diagnostics[0].limit.clone().unwrap();
    assert_eq!((limit.name, limit.value), ("maxRangeLength", 1_000_000));
    assert!(over.message().contains("1000000"));
    assert_eq!(over.diagnostics[0].declaration.as_deref(), Some("main.nx::wide"));
}

#[test]
fn division_by_zero_and_arguments() {
    let program = arithmetic_program();
    let error = evaluate_function(&program, "ratio", &[HostValue::Int(1)], &Limits::default()).unwrap_err();
    assert_eq!(error.code(), codes::DIVISION_BY_ZERO);
    assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("main.nx::ratio"));
    assert!(error.diagnostics[0].limit.is_none());
    // Argument failures name the argument and, as in the reference runtime, no declaration.
    let error = evaluate_function(&program, "add", &[HostValue::Int(1)], &Limits::default()).unwrap_err();
    assert_eq!(error.code(), codes::ARGUMENTS);
    assert_eq!(error.diagnostics[0].argument.as_deref(), Some("b"));
    assert_eq!(error.diagnostics[0].declaration, None);
    let error = evaluate_function(&program, "add", &[HostValue::str("x"), HostValue::Int(1)], &Limits::default()).unwrap_err();
    assert_eq!(error.code(), codes::BOUNDARY_TYPE);
    assert_eq!(error.diagnostics[0].argument.as_deref(), Some("a"));
    assert_eq!(error.diagnostics[0].declaration, None);
    let error = evaluate_function(&program, "add", &[HostValue::Int(1), HostValue::Int(1), HostValue::Int(1)], &Limits::default()).unwrap_err();
    assert_eq!(error.code(), codes::ARGUMENTS);
    assert!(error.diagnostics[0].argument.is_none());
    assert_eq!(error.diagnostics[0].declaration, None);
    let error = evaluate_function(&program, "missing", &[], &Limits::default()).unwrap_err();
    assert_eq!(error.code(), codes::MISSING_ENTRYPOINT);
    // As the reference runtimes report it: a call that used no operations, under a budget 0,
    // its input measured first (ir-format §6.2: positional arguments are the sum over them, 1
    // for the one integer).
    for (budget, used) in [(Some(100), Some(0)), (None, None)] {
        let mut usage = Usage::default();
        let limits = Limits { max_operations: budget, max_input_size: Some(1_000), ..Limits::default() };
        let error = evaluate_function_with(&program, "missing", &[Some(&HostValue::Int(1))], &limits, &mut HostValueBuilder, &mut usage);
        assert_eq!(error.unwrap_err().code(), codes::MISSING_ENTRYPOINT);
        assert_eq!(usage, Usage { operations: used, input_size: Some(1) });
    }
}

#[test]
fn input_size_worked_numbers() {
    let input_size = |value: &HostValue, limit| measure_input_size(&value, limit).expect("measures");
    // ir-format §7.3 and the Rust unit-test facts.
    let ints = HostValue::List((0..1000).map(HostValue::Int).collect());
    assert_eq!(input_size(&ints, None), 1001);
    assert_eq!(input_size(&HostValue::str("x".repeat(6400)), None), 101);
    assert_eq!(input_size(&HostValue::str("é".repeat(64)), None), 2);
    assert_eq!(input_size(&HostValue::str("é".repeat(63)), None), 1);
    assert_eq!(input_size(&HostValue::str("😀".repeat(32)), None), 2);
    assert_eq!(input_size(&HostValue::str("😀".repeat(31)), None), 1);
    let mixed = HostValue::List(vec![
        HostValue::Null,
        HostValue::List(vec![]),
        HostValue::Record(HostRecord::default()),
        HostValue::List(vec![HostValue::Null, HostValue::Null]),
    ]);
    assert_eq!(input_size(&mixed, None), 7);
    let wide = HostValue::Record(HostRecord::new(Some("nx.int")).with("value", HostValue::str("9007199254740993")));
    assert_eq!(input_size(&wide, None), 2);
    let long_name = HostValue::Record(HostRecord::new(None).with(&"k".repeat(1 << 20), HostValue::Int(1)));
    assert_eq!(input_size(&long_name, None), 16_386);
    let typed = HostValue::Record(HostRecord::new(Some(&"T".repeat(128))));
    assert_eq!(input_size(&typed, None), 3);
    let mut deep = HostValue::Int(1);
    for _ in 0..2000 {
        deep = HostValue::List(vec![deep]);
    }
    assert_eq!(input_size(&deep, None), 2001);
    assert_eq!(input_size(&deep, Some(1000)), 1001);
    let million = HostValue::List((0..1_000_000).map(HostValue::Int).collect());
    assert_eq!(input_size(&million, Some(10)), 11);
    // Input limits on a call: proceeds at the size, fails one below with no declaration.
    let program = arithmetic_program();
    let limits = Limits { max_input_size: Some(2), ..Limits::default() };
    let ok = evaluate_function(&program, "add", &[HostValue::Int(1), HostValue::Int(2)], &limits).unwrap();
    assert_eq!(ok.usage.input_size, Some(2));
    let limits = Limits { max_input_size: Some(1), max_operations: Some(100), ..Limits::default() };
    let mut usage = Usage::default();
    let args = [Some(&HostValue::Int(1)), Some(&HostValue::Int(2))];
    let error = evaluate_function_with(&program, "add", &args, &limits, &mut HostValueBuilder, &mut usage).unwrap_err();
    assert_eq!(error.diagnostics[0].limit.as_ref().map(|l| l.name), Some("maxInputSize"));
    assert!(error.diagnostics[0].declaration.is_none());
    assert_eq!(usage, Usage { operations: Some(0), input_size: None });
}

#[test]
fn deep_host_values_hit_the_value_nesting_limit() {
    let program = arithmetic_program();
    let mut deep = HostValue::Int(1);
    for _ in 0..300 {
        deep = HostValue::List(vec![deep]);
    }
    let error = evaluate_function(&program, "add", &[deep, HostValue::Int(1)], &Limits::default()).unwrap_err();
    let limit = error.diagnostics[0].limit.clone().unwrap();
    assert_eq!((limit.name, limit.value), ("maxValueNesting", 256));
}

fn adversarial_program() -> CompiledProgram {
    let mut b = Builder::new("main.nx");
    let _prelude = b.link("@nx/prelude.nx");
    let int = b.prim("int");
    let object = b.prim("object");
    let string = b.prim("string");
    let ints = b.ty(Type::Seq { item: int, occurrence: 2 });
    // loop(n:int): int = { loop(n + 1) }
    let n = b.slot(0, "n");
    let one = b.int(1);
    let next = b.node(Node::Binary { op: 0, lhs: n, rhs: one });
    let name = b.s("loop");
    let callee = b.node(Node::Reference(Ref { slot: 0, name }));
    let call = b.node(Node::Call { callee, args: vec![Some(next)] });
    b.function("loop", vec![("n", int, 0)], call, Some(int));
    // growList(n:int, xs:int+): int+ = { if n == 0 { xs } else { growList(n - 1, { xs xs }) } }
    let n = b.slot(0, "n");
    let zero = b.int(0);
    let done = b.node(Node::Binary { op: 8, lhs: n, rhs: zero });
    let xs = b.slot(1, "xs");
    let n2 = b.slot(0, "n");
    let one = b.int(1);
    let less = b.node(Node::Binary { op: 1, lhs: n2, rhs: one });
    let (x1, x2) = (b.slot(1, "xs"), b.slot(1, "xs"));
    let doubled = b.node(Node::Array { items: vec![x1, x2] });
    let name = b.s("growList");
    let callee = b.node(Node::Reference(Ref { slot: 0, name }));
    let call = b.node(Node::Call { callee, args: vec![Some(less), Some(doubled)] });
    let body = b.node(Node::If { cond: done, then: xs, otherwise: Some(call) });
    b.function("growList", vec![("n", int, 0), ("xs", ints, 0)], body, Some(ints));
    // growText(n:int, s:string): string = { if n == 0 { s } else { growText(n - 1, s + s) } }
    let n = b.slot(0, "n");
    let zero = b.int(0);
    let done = b.node(Node::Binary { op: 8, lhs: n, rhs: zero });
    let s = b.slot(1, "s");
    let n2 = b.slot(0, "n");
    let one = b.int(1);
    let less = b.node(Node::Binary { op: 1, lhs: n2, rhs: one });
    let (s1, s2) = (b.slot(1, "s"), b.slot(1, "s"));
    let twice = b.node(Node::Binary { op: 7, lhs: s1, rhs: s2 });
    let name = b.s("growText");
    let callee = b.node(Node::Reference(Ref { slot: 0, name }));
    let call = b.node(Node::Call { callee, args: vec![Some(less), Some(twice)] });
    let body = b.node(Node::If { cond: done, then: s, otherwise: Some(call) });
    b.function("growText", vec![("n", int, 0), ("s", string, 0)], body, Some(string));
    // wrap(n:int, o:object): object = { if n == 0 { o } else { wrap(n - 1, <box a={o} b={o} />) } }
    let n = b.slot(0, "n");
    let zero = b.int(0);
    let done = b.node(Node::Binary { op: 8, lhs: n, rhs: zero });
    let o = b.slot(1, "o");
    let n2 = b.slot(0, "n");
    let one = b.int(1);
    let less = b.node(Node::Binary { op: 1, lhs: n2, rhs: one });
    let (o1, o2) = (b.slot(1, "o"), b.slot(1, "o"));
    let (tag, pa, pb) = (b.s("box"), b.s("a"), b.s("b"));
    let boxed = b.node(Node::Element { id: 0, tag, props: vec![Prop { name: pa, value: o1 }, Prop { name: pb, value: o2 }], content: vec![] });
    let name = b.s("wrap");
    let callee = b.node(Node::Reference(Ref { slot: 0, name }));
    let call = b.node(Node::Call { callee, args: vec![Some(less), Some(boxed)] });
    let body = b.node(Node::If { cond: done, then: o, otherwise: Some(call) });
    b.function("wrap", vec![("n", int, 0), ("o", object, 0)], body, Some(object));
    // same(o:object): boolean = { o == o }
    let (o1, o2) = (b.slot(0, "o"), b.slot(0, "o"));
    let same = b.node(Node::Binary { op: 8, lhs: o1, rhs: o2 });
    b.function("same", vec![("o", object, 0)], same, None);
    b.program()
}

fn limit_name(error: &IrError) -> Option<&'static str> {
    error.diagnostics[0].limit.as_ref().map(|l| l.name)
}

#[test]
fn deep_recursion_stops_at_the_call_depth() {
    let program = adversarial_program();
    let error = evaluate_function(&program, "loop", &[HostValue::Int(0)], &Limits::default()).unwrap_err();
    assert_eq!(error.code(), codes::RESOURCE_LIMIT);
    assert_eq!(limit_name(&error), Some("maxCallDepth"));
    assert_eq!(error.diagnostics[0].limit.as_ref().map(|l| l.value), Some(100));
    assert!(error.diagnostics[0].declaration.is_none());
    assert!(error.message().contains("call depth 100"));
    // With the call depth lifted, the expression nesting (or the stack guard) stops it.
    let limits = Limits { max_call_depth: u32::MAX, ..Limits::default() };
    let error = evaluate_function(&program, "loop", &[HostValue::Int(0)], &limits).unwrap_err();
    assert_eq!(error.code(), codes::RESOURCE_LIMIT);
    assert!(matches!(limit_name(&error), Some("maxExpressionNesting") | Some("maxStackBytes")), "{error:?}");
}

#[test]
fn a_thread_with_a_small_stack_meets_the_stack_limit_instead_of_overflowing() {
    // 1 MiB of stack is allowed, but the thread has 192 KiB: the allowance shrinks to the
    // thread's room (on Linux), so the recursion fails at `maxStackBytes` instead of crashing.
    let outcome = std::thread::Builder::new()
        .stack_size(192 << 10)
        .spawn(|| {
            let program = adversarial_program();
            let limits = Limits { max_call_depth: u32::MAX, ..Limits::default() };
            let error = evaluate_function(&program, "loop", &[HostValue::Int(0)], &limits).unwrap_err();
            (error.code(), error.diagnostics[0].limit.as_ref().map(|l| (l.name, l.value)))
        })
        .expect("a thread")
        .join()
        .expect("no panic");
    assert_eq!(outcome.0, codes::RESOURCE_LIMIT);
    let (name, value) = outcome.1.expect("a limit");
    if cfg!(target_os = "linux") {
        assert_eq!(name, "maxStackBytes");
        assert!(value < 192 << 10, "the allowance is the thread's room: {value}");
    }
}

/// `far() = { for i in 0..1 { i } }` with `i` in slot 60,000 (an image may put a local in any
/// slot under 65,536), and `calls(n) = { for k in 0..n { far() } }`: each call of `far` binds a
/// slot 60,000 past its frame's end.
fn far_slot_program() -> CompiledProgram {
    let mut b = Builder::new("main.nx");
    let prelude = b.link("@nx/prelude.nx");
    let int = b.prim("int");
    let range = b.range(prelude, 0, 1);
    let i = b.slot(60_000, "i");
    let item = b.s("i");
    let body = b.node(Node::ForRange(Loop { item_slot: 60_000, item_name: item, index_slot: None, index_name: None, iterable: range, body: i }));
    b.function("far", vec![], body, None);
    let n = b.slot(0, "n");
    let range = b.range_to(prelude, 0, n);
    let far = b.s("far");
    let callee = b.node(Node::Reference(Ref { slot: 0, name: far }));
    let call = b.node(Node::Call { callee, args: vec![] });
    let k = b.s("k");
    let body = b.node(Node::ForRange(Loop { item_slot: 1, item_name: k, index_slot: None, index_name: None, iterable: range, body: call }));
    b.function("calls", vec![("n", int, 0)], body, None);
    b.program()
}

#[test]
fn slots_a_bind_skips_count_against_the_memory_ceiling() {
    let program = far_slot_program();
    let within = |ops: u64| work::last_call_work() <= crate::testing::fuzz::WORK_PER_UNIT * (ops + work::last_call_free_copies() + 1);
    // 100 calls skip 60,000 slots each (16 bytes a slot: 96 MB, under the 256 MiB ceiling).
    let limits = Limits { max_operations: Some(10_000), ..Limits::default() };
    let done = evaluate_function(&program, "calls", &[HostValue::Int(100)], &limits).expect("evaluates");
    assert_eq!(done.value, HostValue::List(vec![HostValue::Int(0); 100]));
    assert_eq!(work::last_call_free_copies(), 100 * 60_000);
    let ops = done.usage.operations.expect("counted");
    assert!(within(ops), "work {} for {ops} operations", work::last_call_work());
    // 1,000 calls would skip 960 MB of slots: the call stops at the ceiling, having done work
    // in proportion to what it was paid.
    let error = evaluate_function(&program, "calls", &[HostValue::Int(1_000)], &limits).unwrap_err();
    assert_eq!(error.code(), codes::RESOURCE_LIMIT);
    assert_eq!(limit_name(&error), Some("memory"));
    let free = work::last_call_free_copies();
    // Counted up to the ceiling, and the bind that passes it (refused before its slots are made).
    assert!(free <= DEFAULT_MAX_MEMORY / 16 + 60_000, "{free} slots counted");
    assert!(within(10_000), "work {} within a budget of 10,000 operations", work::last_call_work());
}

#[test]
fn doubling_growth_ends_within_the_budget() {
    let program = adversarial_program();
    let limits = Limits::with_budget(100_000);
    let ok = evaluate_function(&program, "growList", &[HostValue::Int(12), HostValue::List(vec![HostValue::Int(1)])], &limits).unwrap();
    assert!(matches!(&ok.value, HostValue::List(items) if items.len() == 4096));
    for n in [13, 60] {
        let mut usage = Usage::default();
        let args = [Some(&HostValue::Int(n)), Some(&HostValue::List(vec![HostValue::Int(1)]))];
        let error = evaluate_function_with(&program, "growList", &args, &limits, &mut HostValueBuilder, &mut usage).unwrap_err();
        assert_eq!(limit_name(&error), Some("maxOperations"));
        assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("main.nx::growList"));
        assert!(usage.operations.unwrap() <= 100_000);
    }
    let ok = evaluate_function(&program, "growText", &[HostValue::Int(21), HostValue::str("x")], &limits).unwrap();
    assert!(matches!(&ok.value, HostValue::Str(s) if s.len() == 1 << 21));
    for n in [22, 60] {
        let error = evaluate_function(&program, "growText", &[HostValue::Int(n), HostValue::str("x")], &limits).unwrap_err();
        assert_eq!(limit_name(&error), Some("maxOperations"));
        assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("main.nx::growText"));
    }
}

#[test]
fn shared_structure_is_charged_per_place_it_is_reached() {
    // A record holding one value twice, 40 levels deep: 2^40 values to a walk. Writing it and
    // comparing it must fail within the budget, after work proportional to the budget.
    let program = adversarial_program();
    let limits = Limits::with_budget(100_000);
    let mut usage = Usage::default();
    let args = [Some(&HostValue::Int(40)), Some(&HostValue::Int(1))];
    let error = evaluate_function_with(&program, "wrap", &args, &limits, &mut HostValueBuilder, &mut usage).unwrap_err();
    assert_eq!(limit_name(&error), Some("maxOperations"));
    assert_eq!(error.diagnostics[0].declaration.as_deref(), Some("main.nx::wrap"));
    assert!(usage.operations.unwrap() <= 100_000);
    let small = evaluate_function(&program, "wrap", &[HostValue::Int(3), HostValue::Int(1)], &Limits::with_budget(1000)).unwrap();
    assert!(small.usage.operations.unwrap() < 1000);
}

#[test]
fn comparisons_stop_early_only_where_the_rules_say() {
    // §7.1: host lists at object that differ in the first item: the pair + the first item pair.
    let program = adversarial_program();
    let list = HostValue::List((0..100_000).map(HostValue::Int).collect());
    let result = evaluate_function(&program, "same", &[list], &Limits::with_budget(u64::MAX)).unwrap();
    // check 1 + binary 1 + 2 slots + list pair 1 + 100,000 item pairs + write 1
    assert_eq!(result.value, HostValue::Bool(true));
    assert_eq!(result.usage.operations, Some(100_006));
    // {a:1,b:2} compared with itself: the pair, 2 field pairs.
    let record = HostValue::Record(HostRecord::new(None).with("a", HostValue::Int(1)).with("b", HostValue::Int(2)));
    let result = evaluate_function(&program, "same", &[record], &Limits::with_budget(u64::MAX)).unwrap();
    assert_eq!(result.usage.operations, Some(4 + 3 + 1));
    // NaN is not equal to itself, even inside one record.
    let nan = HostValue::Record(HostRecord::new(None).with("v", HostValue::Float(f64::NAN)));
    let result = evaluate_function(&program, "same", &[nan], &Limits::default()).unwrap();
    assert_eq!(result.value, HostValue::Bool(false));
}

fn function_value(module: &str, name: &str) -> HostValue {
    HostValue::Record(
        HostRecord::new(Some("Function")).with("module", HostValue::str(module)).with("name", HostValue::str(name)),
    )
}

#[test]
fn call_function_by_position_and_by_name() {
    // ir-format §4.9: call_function resolves the Function record and binds like a call; `add`
    // costs 6 either way (§7.1 worked count), the same as evaluate_function.
    let program = arithmetic_program();
    let add = function_value("main.nx", "add");
    let budget = Limits::with_budget(u64::MAX);
    let (one, two) = (HostValue::Int(1), HostValue::Int(2));
    let positional = call_function(&program, &add, CallArguments::Positional(&[Some(&one), Some(&two)]), &budget).unwrap();
    assert_eq!(positional.value, HostValue::Int(3));
    assert_eq!(positional.usage.operations, Some(6));
    let named = call_function(&program, &add, CallArguments::Named(&[("b", &two), ("a", &one), ("extra", &one)]), &budget).unwrap();
    assert_eq!(named.value, HostValue::Int(3));
    assert_eq!(named.usage.operations, Some(6));
    // Too many positional arguments: nx-ir-arguments with no `argument`.
    let error = call_function(&program, &add, CallArguments::Positional(&[Some(&one), Some(&one), Some(&one)]), &budget)
        .unwrap_err();
    assert_eq!(error.code(), codes::ARGUMENTS);
    assert!(error.diagnostics[0].argument.is_none());
    // A required parameter left out: nx-ir-arguments naming it, by position and by name.
    let error = call_function(&program, &add, CallArguments::Positional(&[Some(&one)]), &budget).unwrap_err();
    assert_eq!(error.code(), codes::ARGUMENTS);
    assert_eq!(error.diagnostics[0].argument.as_deref(), Some("b"));
    let error = call_function(&program, &add, CallArguments::Positional(&[None, Some(&one)]), &budget).unwrap_err();
    assert_eq!(error.code(), codes::ARGUMENTS);
    assert_eq!(error.diagnostics[0].argument.as_deref(), Some("a"));
    let error = call_function(&program, &add, CallArguments::Named(&[("a", &one)]), &budget).unwrap_err();
    assert_eq!(error.code(), codes::ARGUMENTS);
    assert_eq!(error.diagnostics[0].argument.as_deref(), Some("b"));
    // A value that does not fit the parameter: a boundary error naming the parameter.
    let text = HostValue::str("x");
    let error = call_function(&program, &add, CallArguments::Positional(&[Some(&one), Some(&text)]), &budget).unwrap_err();
    assert_eq!(error.code(), codes::BOUNDARY_TYPE);
    assert_eq!(error.diagnostics[0].argument.as_deref(), Some("b"));
    // A bad Function record: nx-ir-function-value, never blamed on an argument.
    for bad in [function_value("main.nx", "nope"), function_value("elsewhere.nx", "add"), HostValue::Int(1)] {
        let error = call_function(&program, &bad, CallArguments::Positional(&[Some(&one), Some(&two)]), &budget).unwrap_err();
        assert_eq!(error.code(), codes::FUNCTION_VALUE);
        assert!(error.diagnostics[0].argument.is_none());
    }
    // Input size (§6.2): the Function record (1 + 2 strings = 3) then the arguments as one
    // record by name (1 + 2) or one list by position (1 + 2).
    let sized = Limits { max_input_size: Some(6), ..Limits::default() };
    let by_position = call_function(&program, &add, CallArguments::Positional(&[Some(&one), Some(&two)]), &sized).unwrap();
    assert_eq!(by_position.usage.input_size, Some(6));
    let by_name = call_function(&program, &add, CallArguments::Named(&[("a", &one), ("b", &two)]), &sized).unwrap();
    assert_eq!(by_name.usage.input_size, Some(6));
    let tight = Limits { max_input_size: Some(5), ..Limits::default() };
    let error = call_function(&program, &add, CallArguments::Positional(&[Some(&one), Some(&two)]), &tight).unwrap_err();
    assert_eq!(error.diagnostics[0].limit.as_ref().map(|l| l.name), Some("maxInputSize"));
}

#[test]
fn a_function_handle_calls_as_its_record_does() {
    // The record resolved once: the same value, operations and input size (the record's 3 in
    // it), a host-measured argument size used as given, and a bad name refused as the record is.
    let program = arithmetic_program();
    let add = function_value("main.nx", "add");
    let handle = program.function_handle("main.nx", "add").unwrap();
    assert_eq!(handle.record_size(), measure_input_size(&&add, None).unwrap());
    let (one, two) = (HostValue::Int(1), HostValue::Int(2));
    let named = [("a", &one), ("b", &two)];
    let positional = [Some(&one), Some(&two)];
    let call = |args: CallArguments<'_, &HostValue>, limits: &Limits, host: HostCall<'_>| {
        let mut usage = Usage::default();
        let value = call_function_hooked(&program, handle, args, limits, &mut HostValueBuilder, &mut usage, host);
        (value, usage)
    };
    for limit in [None, Some(6)] {
        let limits = Limits { max_input_size: limit, ..Limits::with_budget(u64::MAX) };
        for args in [CallArguments::Named(&named), CallArguments::Positional(&positional)] {
            let expected = call_function_with(&program, &&add, args, &limits, &mut HostValueBuilder, &mut Usage::default());
            let (value, usage) = call(args, &limits, HostCall::default());
            assert_eq!(value.unwrap(), expected.unwrap());
            assert_eq!(usage, Usage { operations: Some(6), input_size: limit });
        }
    }
    let tight = Limits { max_input_size: Some(5), ..Limits::default() };
    let (value, _) = call(CallArguments::Named(&named), &tight, HostCall::default());
    assert_eq!(value.unwrap_err().diagnostics[0].limit.as_ref().map(|l| l.name), Some("maxInputSize"));
    // A measured size is trusted: 3 for the record, then what the host says.
    let sized = Limits { max_input_size: Some(10), ..Limits::default() };
    let (_, usage) = call(CallArguments::Named(&named), &sized, HostCall { long_run: None, args_size: Some(7) });
    assert_eq!(usage.input_size, Some(10));
    let (value, _) = call(CallArguments::Named(&named), &sized, HostCall { long_run: None, args_size: Some(8) });
    assert_eq!(value.unwrap_err().code(), codes::RESOURCE_LIMIT);
    for (module, name) in [("main.nx", "nope"), ("elsewhere.nx", "add")] {
        assert_eq!(program.function_handle(module, name).unwrap_err().code(), codes::FUNCTION_VALUE);
    }
}

#[test]
fn text_values_hold_their_bytes_behind_one_word() {
    use value::Text;
    assert_eq!(std::mem::size_of::<Text>(), std::mem::size_of::<usize>());
    for (left, right) in [("", ""), ("item ", "42"), ("", "é"), ("日本", ""), ("a\u{1F600}", "\u{10FFFF}z")] {
        let ascii = left.is_ascii() && right.is_ascii();
        let joined = Text::concat(left, right, ascii);
        assert_eq!(&*joined, format!("{left}{right}"));
        assert_eq!(joined.len(), left.len() + right.len());
        assert_eq!(joined.is_ascii(), ascii);
        let copied = Text::new(&joined);
        assert_eq!(&*copied, &*joined);
        assert_eq!(copied.is_ascii(), ascii);
        // The UTF-16 length, from the flag or by a walk, is the text's count of UTF-16 units.
        let units = format!("{left}{right}").encode_utf16().count() as u64;
        assert_eq!((joined.len16(), copied.len16()), (units, units));
    }
    assert!(Text::new("plain words, 42.").is_ascii());
    assert!(!Text::new("caf\u{e9}").is_ascii());
    assert_eq!(Text::new("\u{1F600}\u{1F600}").len16(), 4);
    for value in [0, 7, -7, 10, -10, 99, 1_000_000, i64::MAX, i64::MIN, i64::MIN + 1, 1 << 40, -(1 << 53)] {
        let text = Text::int(value);
        assert_eq!(&*text, value.to_string());
        assert!(text.is_ascii());
    }
    let long = "x".repeat(1 << 16);
    let text = Text::concat(&long, &long, true);
    let shared = text.clone();
    drop(text);
    assert_eq!(shared.len(), 1 << 17);
    assert!(shared.bytes().all(|b| b == b'x'));
}

#[test]
fn a_text_shared_between_threads_lives_until_its_last_holder_drops_it() {
    use value::Text;
    // A literal's text is shared by calls on any thread: clones made and dropped concurrently
    // keep it whole until the last one goes (the count is atomic; a sole holder frees it
    // without the decrement).
    let literal = Text::literal("caf\u{e9} shared");
    assert!(literal.is_shared() && !literal.is_ascii());
    assert!(!Text::new("made").is_shared() && Text::new("made").is_ascii());
    let held = std::sync::Arc::new(std::sync::Barrier::new(4));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let mine = literal.clone();
            let held = std::sync::Arc::clone(&held);
            std::thread::spawn(move || {
                held.wait();
                for _ in 0..10_000 {
                    let copy = mine.clone();
                    assert_eq!(&*copy, "caf\u{e9} shared");
                    drop(copy);
                }
                mine
            })
        })
        .collect();
    let returned: Vec<Text> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    drop(literal);
    for text in &returned {
        assert_eq!(&**text, "caf\u{e9} shared");
        assert_eq!(text.len16(), 11);
    }
    drop(returned);
    let empty = Text::new("");
    assert_eq!((&*empty, empty.len16(), empty.is_ascii()), ("", 0, true));
}

#[test]
fn a_written_value_is_charged_in_one_piece_and_a_refused_charge_is_not_counted() {
    // `held(o: object): object = o` of the corpus' host-values: checking the argument, reading
    // the slot and checking the result cost 3; writing a text of 64 code units or more costs 1
    // plus its text cost, and a record 1 plus the text cost of its names, each as one charge.
    let mut b = Builder::new("main.nx");
    let object = b.prim("object");
    let body = b.slot(0, "o");
    b.function("held", vec![("o", object, 0)], body, Some(object));
    let program = b.program();
    let text = HostValue::str("é".repeat(64));
    let long_name = HostValue::Record(HostRecord::new(None).with(&"n".repeat(70), HostValue::Int(1)));
    assert_eq!(cost(&program, "held", std::slice::from_ref(&text)).1, 5);
    assert_eq!(cost(&program, "held", std::slice::from_ref(&long_name)).1, 6);
    // (argument, budget, operations the failed call reports): the nx-ir-runtime 0.7.0 numbers
    // of host-values held#text and held#longName.
    for (arg, budget, used) in [(&text, 4, 3), (&long_name, 4, 3), (&long_name, 5, 5)] {
        let mut usage = Usage::default();
        let error = evaluate_function_with(&program, "held", &[Some(arg)], &Limits::with_budget(budget), &mut HostValueBuilder, &mut usage)
            .unwrap_err();
        assert_eq!(limit_name(&error), Some("maxOperations"));
        assert_eq!(usage.operations, Some(used), "{arg:?} at {budget}");
    }
}

#[test]
fn a_shared_list_that_checking_leaves_as_it_was_is_kept_not_copied() {
    use crate::model::kinds::ty::{MAY_BE_EMPTY, MAY_HOLD_MANY};
    use machine::{Cx, Machine};
    use normalize::Path;
    use value::{Text, Value};

    let mut b = Builder::new("lists");
    let string = b.prim("string");
    let float = b.prim("float64");
    let texts = b.ty(Type::Seq { item: string, occurrence: MAY_BE_EMPTY | MAY_HOLD_MANY });
    let floats = b.ty(Type::Seq { item: float, occurrence: MAY_BE_EMPTY | MAY_HOLD_MANY });
    let body = b.int(0);
    b.function("f", vec![], body, None);
    let program = b.program();
    let limits = Limits::with_budget(1_000);
    let mut machine = Machine::new(&program, &limits);
    let cx = Cx { module: 0, decl: 0, depth: 0 };
    let path = Path::Root("xs");

    // Texts checked against `string[]`: each item comes back as itself, so the list does too.
    let list = Value::seq(vec![Value::Str(Text::new("a")), Value::Str(Text::new("b"))]);
    let used = machine.used().expect("counted");
    let checked = machine.normalize(cx, texts, list.clone(), &path).expect("texts are strings");
    assert!(checked.is(&list), "a list of texts checked as string[] is the list it was");
    // One per item and none for the list (ir-format §4.7), as when the list was rebuilt.
    assert_eq!(machine.used().expect("counted") - used, 2);

    // A float, then an integer, checked against `float[]`: the integer becomes a float, so the
    // list is a new one from there, with the unchanged float the very value it was.
    let list = Value::seq(vec![Value::Float(0.5), Value::Int(2)]);
    let checked = machine.normalize(cx, floats, list.clone(), &path).expect("numbers are floats");
    assert!(!checked.is(&list));
    let (Value::Seq(before), Value::Seq(after)) = (&list, &checked) else { panic!("lists") };
    assert!(after[0].is(&before[0]));
    assert!(matches!(after[1], Value::Float(f) if f == 2.0));
    assert!(matches!(before[1], Value::Int(2)), "the list checked is left as it was");
}
