//! Records past 64 fields keep them in shared trees (`eval::wide`) instead of a flat vector; the
//! order of their fields must be exactly the flat one (ir-format §4.11): `apply` sets a field the
//! record holds in its place, adds a new one after the others in the update's order and leaves a
//! cleared one out; `merge` sets each field of its second record the same way. The order shows in
//! `changed` of a `diff` from an empty record, which lists the undeclared fields in the order the
//! diff holds them: the result's. Each width is checked below and above the 64-field threshold.

mod support;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::eval::{evaluate_function_with, CompiledProgram, HostRecord, HostValue, HostValueBuilder, Limits, ModelProgram, Usage};

const SOURCE: &str = r#"module order.nx fingerprint 1
requires update-records-v1 update-intrinsics-v1
entrypoints functions [applied appliedTwice merged diffed] components []

record Opt
  a: int = 1

record Opt.Update update of Opt
  a: int

function applied(x: object, y: object, z: object) =
  changed(diff(z, apply(x, y)))

function appliedTwice(x: object, y: object, w: object, z: object) =
  changed(diff(z, apply(apply(x, y), w)))

function merged(x: object, y: object, z: object) =
  changed(diff(z, merge(x, y)))

function diffed(x: object, y: object, w: object) =
  changed(diff(apply(x, y), apply(apply(x, y), w)))
"#;

fn program() -> CompiledProgram {
    let module = assemble(SOURCE, &AssembleOptions::default()).expect("assembles");
    CompiledProgram::compile(&ModelProgram::link(vec![module]).expect("links")).expect("compiles")
}

fn record(type_name: &str, fields: &[(&str, HostValue)]) -> HostValue {
    let mut record = HostRecord::new(Some(type_name));
    for (name, value) in fields {
        record = record.with(name, value.clone());
    }
    HostValue::Record(record)
}

fn call(program: &CompiledProgram, name: &str, args: &[HostValue]) -> Vec<String> {
    let args: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let result = evaluate_function_with(program, name, &args, &Limits::with_budget(1_000_000), &mut HostValueBuilder, &mut Usage::default());
    match result {
        Ok(HostValue::List(items)) => items
            .into_iter()
            .map(|item| match item {
                HostValue::Str(name) => name,
                other => panic!("a name, got {other:?}"),
            })
            .collect(),
        other => panic!("{name}: {other:?}"),
    }
}

fn names(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("f{i}")).collect()
}

#[test]
fn wide_records_keep_the_flat_field_order_through_apply_merge_and_diff() {
    let program = program();
    let empty = record("Opt", &[]);
    let int = HostValue::Int;
    for width in [12usize, 64, 65, 80, 300, 5000] {
        let held = names(0..width);
        let mut fields: Vec<(&str, HostValue)> = vec![("a", int(2))];
        fields.extend(held.iter().map(|name| (name.as_str(), int(1))));
        let x = record("Opt", &fields);
        // Sets two fields in place, clears one undeclared and the declared one, adds two.
        let changes = [("f3", int(100)), ("f5", HostValue::Null), ("g1", int(1)), ("a", HostValue::Null), ("f10", int(7)), ("g0", int(0))];
        let y = record("Opt.Update", &changes);
        // Adds back the cleared field and clears another.
        let w = record("Opt.Update", &[("f5", int(5)), ("f3", HostValue::Null)]);

        // The diff from an empty record lists the fields that are not empty: `a` and `f5` cleared.
        let mut expected: Vec<String> = held.iter().filter(|name| *name != "f5").cloned().collect();
        expected.extend(["g1".to_string(), "g0".to_string()]);
        assert_eq!(call(&program, "applied", &[x.clone(), y.clone(), empty.clone()]), expected, "apply, {width} fields");

        let mut twice: Vec<String> = expected.iter().filter(|name| *name != "f3").cloned().collect();
        twice.push("f5".to_string());
        assert_eq!(call(&program, "appliedTwice", &[x.clone(), y.clone(), w.clone(), empty.clone()]), twice, "apply twice, {width} fields");

        // merge sets every field, the empty ones too (so `a` and `f5` are empty, as above).
        assert_eq!(call(&program, "merged", &[x.clone(), record("Opt", &changes), empty.clone()]), expected, "merge, {width} fields");
        // A small first record and a wide second: the first's fields first, then the second's.
        let small = record("Opt", &[("z", int(1)), ("f9", int(0))]);
        let mut small_merged = vec!["a".to_string(), "z".to_string(), "f9".to_string()];
        small_merged.extend(held.iter().filter(|name| *name != "f9").cloned());
        assert_eq!(call(&program, "merged", &[small, x.clone(), empty.clone()]), small_merged, "merge into a small record, {width} fields");

        // The fields the second apply changed: the before record's order (f3 cleared), then the
        // one it added back.
        assert_eq!(call(&program, "diffed", &[x, y, w]), ["f3", "f5"], "diff, {width} fields");
    }
}

/// A diff of two copies of one wide record skips what they share only where that changes
/// nothing: a value not equal to itself (NaN) is still listed, in its place.
#[test]
fn a_shared_value_unequal_to_itself_is_still_in_the_diff() {
    let program = program();
    for width in [12usize, 300] {
        let held = names(0..width);
        let mut fields: Vec<(&str, HostValue)> = held.iter().map(|name| (name.as_str(), HostValue::Int(1))).collect();
        // Far from the fields the updates change or add (at the end): in a part both copies share.
        let nan = if width > 64 { 100 } else { 10 };
        fields[nan].1 = HostValue::Float(f64::NAN);
        let x = record("Opt", &fields);
        let y = record("Opt.Update", &[("f3", HostValue::Int(100)), ("f5", HostValue::Null)]);
        let w = record("Opt.Update", &[("f5", HostValue::Int(5)), ("f3", HostValue::Null)]);
        assert_eq!(call(&program, "diffed", &[x, y, w]), ["f3".to_string(), format!("f{nan}"), "f5".to_string()], "{width} fields");
    }
}

/// The smallest memory ceiling under which `merge` of two wide records succeeds, for a few
/// widths (half of each record's fields shared with the other's).
fn merge_memory_thresholds(program: &CompiledProgram) -> Vec<u64> {
    [100usize, 700, 3000]
        .iter()
        .map(|&width| {
            let held = names(0..width);
            let more = names(width / 2..width / 2 + width);
            let x = record("Opt", &held.iter().map(|name| (name.as_str(), HostValue::Int(1))).collect::<Vec<_>>());
            let y = record("Opt", &more.iter().map(|name| (name.as_str(), HostValue::Int(2))).collect::<Vec<_>>());
            let fits = |max_memory: u64| {
                let limits = Limits { max_memory, ..Limits::with_budget(1_000_000) };
                evaluate_function_with(program, "merged", &[Some(&x), Some(&y), Some(&x)], &limits, &mut HostValueBuilder, &mut Usage::default()).is_ok()
            };
            let (mut refused, mut fitted) = (0u64, 1u64 << 30);
            assert!(fits(fitted), "{width} fields under 1 GiB");
            while fitted - refused > 1 {
                let mid = refused + (fitted - refused) / 2;
                *(if fits(mid) { &mut fitted } else { &mut refused }) = mid;
            }
            fitted
        })
        .collect()
}

/// A wide record's names are hashed under a fixed key: the trie they make, and so the bytes a
/// call is charged against the memory ceiling, are the same in every process. (Under a key
/// drawn per process, one call's ceiling moved by a few kilobytes from run to run, so a call
/// near it passed or failed by chance.)
#[test]
fn a_wide_record_is_charged_the_same_memory_in_every_process() {
    let thresholds = merge_memory_thresholds(&program());
    support::process::same_in_a_child("a_wide_record_is_charged_the_same_memory_in_every_process", &format!("thresholds {thresholds:?}"));
}
