//! Issue 15, "work that no charge pays for": each case an attacker found, as a regression that
//! holds the evaluator's work counter (`eval::last_call_work`: every item scanned, byte copied or
//! hashed) to the one bound the `work_bound` fuzz target asserts, work ≤ K × (operations + input
//! size + free copies + 1) (`testing::fuzz::work_bound`), and the copies the reference's charges
//! leave free to the memory ceiling (`Limits::max_memory`). Never a timing.

mod support;

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::error::{codes, IrError};
use nx_ir_core::eval::{
    evaluate_function_with, last_call_free_copies, last_call_work, measure_input_size, CompiledProgram, HostRecord, HostValue,
    HostValueBuilder, Limits, ModelProgram, Usage,
};
use support::members::type_last;
use nx_ir_core::testing::fuzz::{work_bound, Paid};

/// Fields of the wide record and its update.
const WIDE: usize = 4000;
/// Properties of the wide element.
const PROPS: usize = 20_000;

fn names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("f{i}")).collect()
}

fn source(type_name: &str) -> String {
    let fields: String = names(WIDE).iter().map(|name| format!("  {name}: int?\n")).collect();
    let ordering = names(WIDE).join(", ");
    let props: String = (0..PROPS).map(|i| format!(" p{i}={i}")).collect();
    let wide_props: String = names(WIDE).iter().map(|name| format!(" {name}=1")).collect();
    let long = "é".repeat(64);
    format!(
        r#"module wide.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1 update-records-v1 update-intrinsics-v1
entrypoints functions [changedOrdered changedDeclared applied appliedOnly appliedKept appliedDiffed merged diffed same element record] components []

record {type_name}
{fields}
record {type_name}.Update update of {type_name}
{fields}
function changedOrdered(u: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (changed(u) ordering {ordering} eq 0)

function changedDeclared(u: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (changed(u) eq 0)

function applied(w: object, u: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    apply(w, u)

function appliedOnly(w: object, u: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (apply(w, u) eq 0)

function appliedKept(w: object, u: object, n: int) =
  (applied(w, u, n) eq 0)

function appliedDiffed(w: object, u: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    diff(w, apply(w, u))

function merged(u: object, v: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    merge(u, v)

function diffed(w: object, v: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (diff(w, v) eq 0)

function same(s: string, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (s eq "{long}")

function element(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (<div{props} /> eq 0)

function record(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (<{type_name}{wide_props} /> eq 0)
"#
    )
}

fn program(type_name: &str) -> CompiledProgram {
    let module = assemble(&source(type_name), &AssembleOptions::default()).expect("assembles");
    let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
    CompiledProgram::compile(&ModelProgram::link(vec![module, prelude]).expect("links")).expect("compiles")
}

struct Outcome {
    result: Result<HostValue, IrError>,
    paid: Paid,
}

fn run(program: &CompiledProgram, name: &str, args: &[HostValue], limits: Limits) -> Outcome {
    let args_ref: Vec<Option<&HostValue>> = args.iter().map(Some).collect();
    let mut usage = Usage::default();
    let result = evaluate_function_with(program, name, &args_ref, &limits, &mut HostValueBuilder, &mut usage);
    let input = 1 + args.iter().map(|arg| measure_input_size(&arg, None).expect("measures")).sum::<u64>();
    let paid = Paid { work: last_call_work(), operations: usage.operations.unwrap_or(0), input, free_copies: last_call_free_copies() };
    Outcome { result, paid }
}

impl Outcome {
    /// Within the bound; returns the work per unit paid.
    fn bounded(&self) -> f64 {
        if let Err(message) = work_bound(self.paid) {
            panic!("{message}");
        }
        self.paid.work as f64 / self.paid.units() as f64
    }

    fn limit(&self) -> (&'static str, u64) {
        let error = self.result.as_ref().expect_err("fails");
        assert_eq!(error.code(), codes::RESOURCE_LIMIT, "{error:?}");
        let limit = error.diagnostics[0].limit.as_ref().expect("a limit");
        (limit.name, limit.value)
    }
}

const BUDGET: u64 = 100_000;

fn wide(type_name: &str, count: usize) -> HostValue {
    let mut record = HostRecord::new(Some(type_name));
    for name in names(count) {
        record = record.with(&name, HostValue::Int(1));
    }
    HostValue::Record(record)
}

fn int(i: i64) -> HostValue {
    HostValue::Int(i)
}

#[test]
fn changed_of_a_wide_update_is_linear_in_its_fields() {
    let program = program("Wide");
    for name in ["changedOrdered", "changedDeclared"] {
        let out = run(&program, name, &[wide("Wide.Update", WIDE), int(20)], Limits::with_budget(BUDGET));
        assert!(out.result.is_ok(), "{name}: {:?}", out.result);
        // A scan of the declared names per field would be WIDE² = 16M units per call.
        assert!(out.paid.work < 40 * (WIDE as u64) * 20, "{name}: {:?}", out.paid);
        out.bounded();
    }
}

#[test]
fn kept_copies_of_apply_and_merge_end_at_the_memory_ceiling() {
    let program = program("Wide");
    let limits = Limits { max_memory: 16 << 20, ..Limits::with_budget(BUDGET) };
    // An update of every field copies the whole record, shared or not: 4,000 fields, about
    // 130 KiB of slots each time, so 16 MiB holds about 120 of them.
    let out = run(&program, "applied", &[wide("Wide", WIDE), wide("Wide.Update", WIDE), int(10_000)], limits.clone());
    assert_eq!(out.limit(), ("memory", 16 << 20));
    assert!(out.paid.operations < 10_000, "{:?}", out.paid);
    out.bounded();
    let out = run(&program, "merged", &[wide("Wide.Update", WIDE), wide("Wide.Update", WIDE), int(10_000)], limits);
    assert_eq!(out.limit(), ("memory", 16 << 20));
    out.bounded();
    // Under the default ceiling a few copies run, their work in proportion to what they copied.
    let out = run(&program, "applied", &[wide("Wide", WIDE), wide("Wide.Update", WIDE), int(10)], Limits::with_budget(BUDGET));
    assert!(out.result.is_ok(), "{:?}", out.result);
    // Setting each of the update's fields by a scan would be WIDE² per copy.
    assert!(out.paid.work < 100 * (WIDE as u64) * 10, "{:?}", out.paid);
    out.bounded();
}

/// Fields of the small update applied to the wide record in a loop.
const SMALL: usize = 2;
/// Iterations of that loop.
const LOOPS: usize = 10_000;

#[test]
fn a_small_update_of_a_wide_record_copies_its_paths_only() {
    let program = program("Wide");
    // A copy of the whole record per iteration would be 4,000 fields of 32 bytes (128 KB, 1.3 GB
    // for the loop's kept list); sharing it, each copy is the few nodes on the update's paths.
    let limits = Limits { max_memory: 4096 * LOOPS as u64, ..Limits::with_budget(BUDGET) };
    // The copies are kept in a list until the loop ends (the list is compared, not written).
    let out = run(&program, "appliedKept", &[wide("Wide", WIDE), wide("Wide.Update", SMALL), int(LOOPS as i64)], limits);
    assert!(matches!(out.result, Ok(HostValue::Bool(false))), "{:?}", out.result);
    // Free copies: the update's own fields (and one) per apply, none of the record's.
    assert!(out.paid.free_copies <= (SMALL as u64 + 1) * LOOPS as u64, "{:?}", out.paid);
    // Copying the record would be over WIDE units per iteration.
    assert!(out.paid.work < 500 * LOOPS as u64, "{:?}", out.paid);
    out.bounded();
}

#[test]
fn diff_of_a_wide_record_and_its_small_update_is_bounded_with_few_free_copies() {
    let program = program("Wide");
    let loops = 20;
    let out = run(&program, "appliedDiffed", &[wide("Wide", WIDE), wide("Wide.Update", SMALL), int(loops)], Limits::with_budget(BUDGET));
    let Ok(HostValue::List(items)) = &out.result else { panic!("{:?}", out.result) };
    // Each diff is an update of nothing: the fields set to the values they held.
    assert_eq!(items.len(), loops as usize);
    assert!(items.iter().all(|item| matches!(item, HostValue::Record(r) if r.fields.is_empty())), "{items:?}");
    // diff charges a comparison per field, as the reference does; only apply's copies are free.
    assert!(out.paid.free_copies <= (SMALL as u64 + 1) * loops as u64, "{:?}", out.paid);
    assert!(out.paid.operations >= WIDE as u64 * loops as u64, "{:?}", out.paid);
    // But it visits only the update's paths: the shared rest is charged without a visit. Reading
    // the input is under 40 units a field; visiting every field would be over 20 a field per diff.
    assert!(out.paid.work < 40 * WIDE as u64 + 5_000 * loops as u64, "{:?}", out.paid);
    out.bounded();
}

#[test]
fn diff_of_wide_records_is_bounded() {
    let program = program("Wide");
    let out = run(&program, "diffed", &[wide("Wide", WIDE), wide("Wide", WIDE / 2), int(5)], Limits::with_budget(BUDGET));
    out.bounded();
}

#[test]
fn comparing_a_long_string_reads_only_the_shorter_length() {
    let program = program("Wide");
    let long = HostValue::str("é".repeat(1 << 20));
    let out = run(&program, "same", &[long, int(2000)], Limits::with_budget(BUDGET));
    assert!(matches!(&out.result, Ok(HostValue::List(items)) if items.len() == 2000), "{:?}", out.result);
    // Reading the whole 2 MB text per comparison would be 32,768 units each (65M in all); the
    // shorter text is 128 bytes.
    assert!(out.paid.work < 200_000, "{:?}", out.paid);
    out.bounded();
}

#[test]
fn many_properties_are_linear_in_their_count() {
    let program = program("Wide");
    let out = run(&program, "element", &[int(3)], Limits::with_budget(BUDGET));
    assert!(out.result.is_ok(), "{:?}", out.result);
    // Settling the properties by a scan each would be PROPS² = 400M units per element.
    assert!(out.paid.work < 20 * (PROPS as u64) * 3, "{:?}", out.paid);
    out.bounded();
    let out = run(&program, "record", &[int(3)], Limits::with_budget(BUDGET));
    assert!(out.result.is_ok(), "{:?}", out.result);
    assert!(out.paid.work < 40 * (WIDE as u64) * 3, "{:?}", out.paid);
    out.bounded();
}

#[test]
fn a_megabyte_type_name_is_neither_formatted_nor_hashed_per_intrinsic() {
    let type_name = format!("W{}", "x".repeat(1 << 20));
    let program = program(&type_name);
    let update = format!("{type_name}.Update");
    // The type name is the program's own: every apply and diff finds it by address.
    let out = run(&program, "appliedOnly", &[wide(&type_name, 2), wide(&update, 1), int(2000)], Limits::with_budget(BUDGET));
    assert!(out.result.is_ok(), "{:?}", out.result);
    // Formatting or hashing the name per call would be 16,384 units each.
    assert!(out.paid.work < 200_000, "{:?}", out.paid);
    out.bounded();
    let out = run(&program, "diffed", &[wide(&type_name, 2), wide(&type_name, 1), int(2000)], Limits::with_budget(BUDGET));
    assert!(out.result.is_ok(), "{:?}", out.result);
    assert!(out.paid.work < 200_000, "{:?}", out.paid);
    out.bounded();
}

/// `"item " + i` (a text and an integer's text conversion, written in one allocation) counts its
/// bytes against the memory ceiling as the general `concat` does: a kept list of them ends at the
/// ceiling, at the same item whether the left text is a literal or a parameter.
#[test]
fn concatenated_conversions_count_against_the_memory_ceiling() {
    let long = "x".repeat(1000);
    let text = format!(
        r#"module items.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [literal given] components []

function literal(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("{long}" concat text<int>(i))

function given(s: string, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (s concat text<int>(i))
"#
    );
    let module = assemble(&text, &AssembleOptions::default()).expect("assembles");
    let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
    let program = CompiledProgram::compile(&ModelProgram::link(vec![module, prelude]).expect("links")).expect("compiles");
    let limits = Limits { max_memory: 1 << 20, ..Limits::default() };
    let literal = run(&program, "literal", &[int(2_000)], limits.clone());
    assert_eq!(literal.limit(), ("memory", 1 << 20));
    let given = run(&program, "given", &[HostValue::Str(long.clone()), int(2_000)], limits);
    assert_eq!(given.limit(), ("memory", 1 << 20));
    // About a thousand items of a kilobyte each fit (their list places cost 16 bytes each: 2,000
    // of them alone fit easily), so the texts are what ends the call.
    assert!(literal.paid.operations < 2_000 * 5, "{:?}", literal.paid);
}

/// Cases of the many-case union and the length of their names.
const CASES: usize = 4096;
const CASE_NAME: usize = 1000;

/// A union of [`CASES`] cases whose names share all but their last five bytes, the last case
/// built, checked and matched by name in a loop.
fn many_cases() -> (CompiledProgram, String) {
    let prefix = "c".repeat(CASE_NAME - 5);
    let name = |i: usize| format!("{prefix}{i:05}");
    let cases: String = (0..CASES)
        .map(|i| match i % 2 {
            0 => format!("  case {}\n    v: int required\n", name(i)),
            _ => format!("  case {} constant\n", name(i)),
        })
        .collect();
    let (last, constant) = (name(CASES - 2), name(CASES - 1));
    let text = format!(
        r#"module cases.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [built checked given named] components []

union U
{cases}
function take(u: U) =
  1

function built(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    <U.{last} v=i />

function checked(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    take(<U.{last} v=i />)

function given(u: object, n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    take(u)

function named(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    take("{constant}")
"#
    );
    let module = assemble(&text, &AssembleOptions::default()).expect("assembles");
    let prelude = nx_ir_core::prelude::prelude_model(module.schema).expect("the prelude assembles");
    let program = CompiledProgram::compile(&ModelProgram::link(vec![module, prelude]).expect("links")).expect("compiles");
    (program, last)
}

#[test]
fn a_union_of_thousands_of_long_cases_finds_each_case_by_a_search() {
    // Each construction, check and constant named finds its case among 4,096 names of 1,000
    // bytes that share 995: by a scan, up to 4,096 comparisons of 1,000 bytes each (about 4 MB
    // per item, 64,000 units), which no charge paid for and the work counter did not see.
    let (program, last) = many_cases();
    let items = 200;
    let host = HostValue::Record(HostRecord::new(Some(&format!("U.{last}"))).with("v", int(1)));
    for (name, args) in [
        ("built", vec![int(items)]),
        ("checked", vec![int(items)]),
        ("given", vec![host, int(items)]),
        ("named", vec![int(items)]),
    ] {
        let out = run(&program, name, &args, Limits::with_budget(BUDGET));
        let value = out.result.as_ref().unwrap_or_else(|error| panic!("{name}: {error:?}"));
        let HostValue::List(values) = value else { panic!("{name}: {value:?}") };
        assert_eq!(values.len(), items as usize, "{name}");
        match (name, &values[0]) {
            ("built", HostValue::Record(record)) => assert_eq!(record.type_name.as_deref(), Some(&*format!("U.{last}"))),
            ("built", other) => panic!("{other:?}"),
            (_, other) => assert_eq!(other, &int(1), "{name}"),
        }
        // Per item, the searches at most: 14 comparisons of 16 units each, twice. A
        // construction finds its case without one (it was found when the program was compiled).
        let searches = if name == "built" { 0 } else { 2 * 14 * 16 };
        assert!(out.paid.work < items as u64 * (searches + 100), "{name}: {:?}", out.paid);
        out.bounded();
    }
}

/// [`run`] of a call of `name` with the one argument `arg`, each of its records handing over
/// its `$type` after its other members (as a Python dict written in that order does).
fn run_type_last(program: &CompiledProgram, name: &str, arg: &HostValue) -> Outcome {
    let arg = type_last(arg);
    let mut usage = Usage::default();
    let result = evaluate_function_with(program, name, &[Some(&arg)], &Limits::with_budget(BUDGET), &mut HostValueBuilder, &mut usage);
    let input = 1 + measure_input_size(&&arg, None).expect("measures");
    let paid = Paid { work: last_call_work(), operations: usage.operations.unwrap_or(0), input, free_copies: last_call_free_copies() };
    Outcome { result, paid }
}

#[test]
fn a_type_named_after_the_members_is_found_by_a_pass_the_counter_sees() {
    // Records whose `$type` comes after 60 members, where an abstract record or a union is
    // declared: the reader walks the members to find the `$type`, then reads them in its
    // layout (or, with one member no field takes, the reader's way). Each walk is tallied; the
    // value, operations and the rest of the work are those of the same records with the
    // `$type` first.
    let fields: String = (0..60).map(|i| format!("  f{i}: int required\n")).collect();
    let text = format!(
        r#"module late.nx fingerprint 1
entrypoints functions [viaBase viaUnion] components []

record Named abstract

record Wide extends Named
{fields}
union Shape
  case wide
{cases}
function viaBase(xs: Named*) =
  for x in xs yield
    1

function viaUnion(xs: Shape*) =
  for x in xs yield
    1
"#,
        cases = fields.replace("  f", "    f")
    );
    let module = assemble(&text, &AssembleOptions::default()).expect("assembles");
    let program = CompiledProgram::compile(&ModelProgram::link(vec![module]).expect("links")).expect("compiles");
    let record = |type_name: &str, stray: bool| {
        let mut record = HostRecord::new(Some(type_name));
        for i in 0..60 {
            let name = if stray && i == 59 { "stray".to_string() } else { format!("f{i}") };
            record = record.with(&name, int(i));
        }
        HostValue::Record(record)
    };
    let items = 500;
    for (name, type_name) in [("viaBase", "Wide"), ("viaUnion", "Shape.wide")] {
        for stray in [false, true] {
            let list = HostValue::List((0..items).map(|_| record(type_name, stray)).collect());
            let first = run(&program, name, std::slice::from_ref(&list), Limits::with_budget(BUDGET));
            let late = run_type_last(&program, name, &list);
            match (&late.result, &first.result) {
                (Ok(value), Ok(expected)) => assert_eq!(value, expected, "{name}"),
                (Err(error), Err(expected)) => assert_eq!(error.code(), expected.code(), "{name}"),
                (got, expected) => panic!("{name}, stray {stray}: {got:?} against {expected:?}"),
            }
            assert_eq!(late.paid.operations, first.paid.operations, "{name}");
            assert_eq!(late.paid.input, first.paid.input, "{name}");
            late.bounded();
            let work = late.paid.work;
            // Beside the work of reading them with the `$type` first: the walk, a unit per member
            // (with the stray member, the `$type` is then passed over once less).
            let walks = items as u64 * 60;
            assert!(work > first.paid.work && work <= first.paid.work + walks, "{name}, stray {stray}: {work} against {}", first.paid.work);
            if !stray {
                assert_eq!(work, first.paid.work + walks, "{name}");
            }
        }
    }
}

#[test]
fn a_record_refused_deep_down_is_not_read_again_at_each_level_above() {
    // A chain of 250 records, each with its next record first and then a member that its
    // declaration does not take (or a `$type` naming another): each level read its next one in
    // its declared layout before it met that member. Reading each such record again from the
    // start, as `read_host` reads it, read the levels below once per level above: 94,891 units
    // of work for 753 of input, past the bound. The members read so far are kept and only the
    // rest read that way.
    let text = r#"module deep.nx fingerprint 1
entrypoints functions [take viaBase] components []

record Node abstract

record R extends Node
  next: R?
  x: int required

function take(r: R) =
  1

function viaBase(n: Node) =
  1
"#;
    let module = assemble(text, &AssembleOptions::default()).expect("assembles");
    let program = CompiledProgram::compile(&ModelProgram::link(vec![module]).expect("links")).expect("compiles");
    let depth = 250;
    for (name, member, type_name, code) in [
        ("take", ("stray", int(2)), None, codes::BOUNDARY_FIELD),
        ("take", ("x", int(1)), Some("Other"), codes::BOUNDARY_TYPE),
        ("viaBase", ("stray", int(2)), Some("R"), codes::BOUNDARY_FIELD),
    ] {
        let mut value = HostValue::Record(HostRecord::new(type_name).with("x", int(1)));
        for _ in 0..depth {
            let mut record = HostRecord::new(type_name).with("next", value);
            if member.0 != "x" {
                record = record.with("x", int(1));
            }
            value = HostValue::Record(record.with(member.0, member.1.clone()));
        }
        // With the `$type` first, and last (so that each level reads its next one first).
        for out in [run(&program, name, std::slice::from_ref(&value), Limits::with_budget(BUDGET)), run_type_last(&program, name, &value)] {
            let refused = out.result.as_ref().expect_err(name);
            assert_eq!(refused.code(), code, "{name}: {refused:?}");
            out.bounded();
            // Each value read once (a unit each, and for each record the work of finding its
            // layout), and each member read before the stop passed over once more.
            assert!(out.paid.work < 3 * out.paid.input, "{name}, {type_name:?}: {:?}", out.paid);
        }
    }
}
