//! The host reader against itself: generated host values shaped after the declared types of a
//! program's parameters (nested and optional records, lists of them, abstract records and
//! unions, records chained 250 deep), each bent a little (a `$type` anywhere among the members,
//! naming another type or none, a member dropped, added or mistyped, members out of order), read
//! by the shortcut that builds a record in its declared layout as it reads it and by the plain
//! reader with the check after it (the program compiled without its shortcuts). The value or the
//! refusal, and the operations, must be the same; and the work of each call stays within the
//! work bound (`testing::fuzz::work_bound`), for any order of members.

mod support;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::error::IrError;
use nx_ir_core::eval::{
    evaluate_function_with, last_call_free_copies, last_call_work, measure_input_size, CompiledProgram, HostValue, HostValueBuilder,
    Limits, ModelProgram, Usage,
};
use nx_ir_core::testing::fuzz::{work_bound, Paid, Rng};
use support::members::Ordered;

/// Records, optional records, lists, an abstract record and a union, each a parameter's type.
/// `tests/test_host_input.py` reads the same program from Python dicts.
const PROGRAM: &str = include_str!("host_reading/reading.nxir.txt");

/// The declared types the generator shapes values after (mirroring [`PROGRAM`]).
#[derive(Clone, Copy)]
enum Ty {
    Int,
    Float,
    Str,
    Object,
    R,
    Person,
    Item,
    Named,
    Shape,
    Holder,
}

struct Gen {
    rng: Rng,
    /// Values made so far for this input (a cap keeps each input small).
    made: usize,
}

impl Gen {
    fn one_in(&mut self, n: usize) -> bool {
        self.rng.below(n) == 0
    }

    /// Any value at all (what a mistyped member holds).
    fn any(&mut self, depth: u32) -> Ordered {
        self.made += 1;
        match self.rng.below(if depth > 3 || self.made > 200 { 5 } else { 7 }) {
            0 => Ordered::Null,
            1 => Ordered::Bool(self.one_in(2)),
            2 => Ordered::Int(self.rng.below(200) as i64 - 100),
            3 => Ordered::Float(self.rng.below(1000) as f64 / 8.0),
            4 => Ordered::Str(["", "a", "blank", "Shape.circle", "User"][self.rng.below(5)].to_string()),
            5 => Ordered::List((0..self.rng.below(3)).map(|_| self.any(depth + 1)).collect()),
            _ => {
                let members = (0..self.rng.below(3)).map(|i| (format!("k{i}"), self.any(depth + 1))).collect();
                Ordered::Rec(members)
            }
        }
    }

    /// A value of `ty`, bent now and then.
    fn value(&mut self, ty: Ty, depth: u32) -> Ordered {
        self.made += 1;
        if self.one_in(24) || self.made > 400 {
            return self.any(depth);
        }
        match ty {
            Ty::Int => Ordered::Int(self.rng.below(1000) as i64),
            // An int where a float is declared is read and converted.
            Ty::Float => match self.one_in(4) {
                true => Ordered::Int(self.rng.below(10) as i64),
                false => Ordered::Float(self.rng.below(1000) as f64 / 4.0),
            },
            Ty::Str => Ordered::Str(format!("s{}", self.rng.below(100))),
            Ty::Object => self.any(depth),
            Ty::R => self.chain(depth),
            Ty::Person => {
                let fields = vec![("name", self.value(Ty::Str, depth + 1)), ("age", self.value(Ty::Int, depth + 1))];
                self.record("Person", fields)
            }
            Ty::Item => {
                let mut fields = vec![("name", self.value(Ty::Str, depth + 1)), ("price", self.value(Ty::Float, depth + 1))];
                if !self.one_in(3) {
                    let tags = (0..self.rng.below(4)).map(|_| self.value(Ty::Str, depth + 2)).collect();
                    fields.push(("tags", Ordered::List(tags)));
                }
                if self.one_in(2) {
                    fields.push(("owner", self.value(Ty::Person, depth + 1)));
                }
                self.record("Item", fields)
            }
            Ty::Named => match self.rng.below(3) {
                0 => {
                    let mut fields = vec![("name", self.value(Ty::Str, depth + 1))];
                    if self.one_in(2) {
                        fields.push(("age", self.value(Ty::Int, depth + 1)));
                    }
                    self.typed_record("User", fields)
                }
                _ => self.value(Ty::Shape, depth),
            },
            Ty::Shape => match self.rng.below(4) {
                0 => Ordered::Str("blank".to_string()),
                1 => self.typed_record("Shape.blank", Vec::new()),
                2 => {
                    let fields = vec![("name", self.value(Ty::Str, depth + 1)), ("radius", self.value(Ty::Float, depth + 1))];
                    self.typed_record("Shape.circle", fields)
                }
                _ => {
                    let fields = vec![("name", self.value(Ty::Str, depth + 1)), ("side", self.value(Ty::Int, depth + 1))];
                    self.typed_record("Shape.square", fields)
                }
            },
            Ty::Holder => {
                let mut fields = vec![
                    ("shape", self.value(Ty::Shape, depth + 1)),
                    ("named", self.value(Ty::Named, depth + 1)),
                    ("any", self.value(Ty::Object, depth + 1)),
                ];
                if self.one_in(2) {
                    fields.push(("item", self.value(Ty::Item, depth + 1)));
                }
                self.record("Holder", fields)
            }
        }
    }

    /// A chain of `R` records, each with its next one (now and then hundreds deep), every level
    /// bent the same way when the chain is deep.
    fn chain(&mut self, depth: u32) -> Ordered {
        let levels = match self.rng.below(8) {
            0 => 100 + self.rng.below(170),
            _ => self.rng.below(4),
        };
        let bend = self.rng.below(6);
        let mut value: Option<Ordered> = None;
        for level in 0..=levels {
            let mut members: Vec<(String, Ordered)> = Vec::new();
            if let Some(next) = value.take() {
                members.push(("next".to_string(), next));
            }
            members.push(("x".to_string(), Ordered::Int(level as i64)));
            if self.one_in(2) {
                members.push(("label".to_string(), Ordered::Str("l".to_string())));
            }
            match (levels > 50, bend) {
                (true, 0) => members.push(("stray".to_string(), Ordered::Int(1))),
                (true, 1) => members.push(("$type".to_string(), Ordered::Str("Other".to_string()))),
                (true, 2) => members.push(("$type".to_string(), Ordered::Str("R".to_string()))),
                (true, 3) => members.push(("x".to_string(), Ordered::Str("x".to_string()))),
                _ => {}
            }
            if levels <= 50 {
                self.bend(&mut members, depth, "R");
            }
            value = Some(Ordered::Rec(members));
        }
        value.unwrap_or(Ordered::Null)
    }

    fn record(&mut self, type_name: &str, fields: Vec<(&str, Ordered)>) -> Ordered {
        let mut members: Vec<(String, Ordered)> = fields.into_iter().map(|(key, value)| (key.to_string(), value)).collect();
        self.bend(&mut members, 0, type_name);
        Ordered::Rec(members)
    }

    /// A record whose `$type` names it (where it stands, or whether it is there, bent).
    fn typed_record(&mut self, type_name: &str, fields: Vec<(&str, Ordered)>) -> Ordered {
        let mut members: Vec<(String, Ordered)> = fields.into_iter().map(|(key, value)| (key.to_string(), value)).collect();
        if !self.one_in(8) {
            let at = if self.one_in(2) { 0 } else { self.rng.below(members.len() + 1) };
            members.insert(at, ("$type".to_string(), Ordered::Str(type_name.to_string())));
        }
        self.bend(&mut members, 0, type_name);
        Ordered::Rec(members)
    }

    /// Now and then: members reordered, one dropped, one added, a `$type` added (naming the
    /// record, another type, or no string), one's value replaced.
    fn bend(&mut self, members: &mut Vec<(String, Ordered)>, depth: u32, type_name: &str) {
        if self.one_in(6) && members.len() > 1 {
            let (a, b) = (self.rng.below(members.len()), self.rng.below(members.len()));
            members.swap(a, b);
        }
        if self.one_in(12) && !members.is_empty() {
            members.remove(self.rng.below(members.len()));
        }
        if self.one_in(12) {
            let at = self.rng.below(members.len() + 1);
            members.insert(at, ("stray".to_string(), self.any(depth + 1)));
        }
        if self.one_in(10) && !members.iter().any(|(key, _)| key == "$type") {
            let name = match self.rng.below(4) {
                0 => Ordered::Str(type_name.to_string()),
                1 => Ordered::Str("Shape.square".to_string()),
                2 => Ordered::Str("Nothing".to_string()),
                _ => Ordered::Int(7),
            };
            let at = self.rng.below(members.len() + 1);
            members.insert(at, ("$type".to_string(), name));
        }
        if self.one_in(16) && !members.is_empty() {
            let at = self.rng.below(members.len());
            members[at].1 = self.any(depth + 1);
        }
    }
}

struct Run {
    result: Result<HostValue, IrError>,
    paid: Paid,
}

fn run(program: &CompiledProgram, name: &str, arg: &Ordered) -> Run {
    let mut usage = Usage::default();
    let limits = Limits::with_budget(1_000_000);
    let result = evaluate_function_with(program, name, &[Some(arg)], &limits, &mut HostValueBuilder, &mut usage);
    let input = 1 + measure_input_size(&arg, None).expect("a tree measures");
    let paid = Paid { work: last_call_work(), operations: usage.operations.unwrap_or(0), input, free_copies: last_call_free_copies() };
    Run { result, paid }
}

#[test]
fn host_values_shaped_after_their_types_read_alike_both_ways_and_within_the_work_bound() {
    let module = assemble(PROGRAM, &AssembleOptions::default()).expect("assembles");
    let program = CompiledProgram::compile(&ModelProgram::link(vec![module]).expect("links")).expect("compiles");
    let plain = CompiledProgram::compile(&ModelProgram::link(vec![assemble(PROGRAM, &AssembleOptions::default()).expect("assembles")]).expect("links"))
        .expect("compiles")
        .without_shortcuts();
    let calls: [(&str, Option<Ty>); 5] =
        [("chain", None), ("items", Some(Ty::Item)), ("named", Some(Ty::Named)), ("shapes", Some(Ty::Shape)), ("held", None)];
    let (mut values, mut refusals, mut worst) = (0, 0, 0f64);
    for seed in 1..=20_000u64 {
        let mut gen = Gen { rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1), made: 0 };
        let (name, item) = calls[gen.rng.below(calls.len())];
        let arg = match (name, item) {
            ("chain", _) => gen.value(Ty::R, 0),
            ("held", _) => gen.value(Ty::Holder, 0),
            (_, Some(item)) => Ordered::List((0..gen.rng.below(6)).map(|_| gen.value(item, 1)).collect()),
            _ => unreachable!(),
        };
        let shortcut = run(&program, name, &arg);
        let general = run(&plain, name, &arg);
        match (&shortcut.result, &general.result) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "seed {seed}, {name}({arg:?})");
                values += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!((a.code(), a.to_string()), (b.code(), b.to_string()), "seed {seed}, {name}({arg:?})");
                refusals += 1;
            }
            (a, b) => panic!("seed {seed}, {name}({arg:?}): {a:?} against {b:?}"),
        }
        assert_eq!(shortcut.paid.operations, general.paid.operations, "seed {seed}, {name}({arg:?})");
        for (way, paid) in [("shortcut", shortcut.paid), ("general", general.paid)] {
            if let Err(message) = work_bound(paid) {
                panic!("seed {seed}, {name}, {way}: {message}");
            }
            worst = worst.max(paid.work as f64 / (paid.operations + paid.input + paid.free_copies + 1) as f64);
        }
    }
    // Both outcomes are common, so neither half goes untested.
    assert!(values > 2_000 && refusals > 2_000, "{values} values, {refusals} refusals");
    eprintln!("host reading: {values} values and {refusals} refusals alike; worst work ratio {worst:.2}");
}
