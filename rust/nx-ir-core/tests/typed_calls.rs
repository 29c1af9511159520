//! The fuzz targets' typed calls (`testing::typed_calls`, `testing::fuzz::retype_call`): values
//! shaped after a program's declared parameter types, written in the fuzz input's value format,
//! read back as the same values; and evaluate cases whose calls were made again from the called
//! function's types, of which most pass the boundary, some are refused inside their values, some
//! are thousands of values long, and every one stays within the work bound and passes the
//! evaluate target's checks.

use nx_ir_core::assemble::{assemble_image, AssembleOptions};
use nx_ir_core::eval::{measure_input_size, CompiledProgram, HostRecord, HostValue};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::Program;
use nx_ir_core::model::Decl;
use nx_ir_core::testing::fuzz::{
    ComponentCall,
    call_outcome, component_work_of_case, evaluate_case, retype_call, same_value, weight, work_bound, work_of_calls, write_chunks, Bytes, Call, Rng,
    ValueDecoder,
};
use nx_ir_core::testing::instances::initialize_paid;
use nx_ir_core::testing::typed_calls::{encode_value, TypedValues};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Records (one holding itself), lists of records, an abstract record with a subtype, a union
/// with constant and field cases, `object`: one function over each.
const PROGRAM: &str = include_str!("host_reading/reading.nxir.txt");
const FUNCTIONS: [&str; 5] = ["chain", "items", "named", "shapes", "held"];

/// A component whose props hold a text and a list of records.
const CARDS: &str = "module cards.nx fingerprint 1
requires update-records-v1 property-unions-v1 action-handlers-v1
entrypoints functions [] components [Card]

record Item
  name: string required
  price: float64 required
  tags: string*

component Card
  props
    title: string required
    items: Item*
  body =
    items
";

fn image() -> Vec<u8> {
    assemble_image(PROGRAM, &AssembleOptions::default()).expect("the program assembles")
}

/// The call chunk of an evaluate case, decoded.
fn decoded_call(data: &[u8]) -> Call {
    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    Call::decode(flags, bytes.chunk().expect("a call chunk"))
}

fn program(image: &[u8]) -> Program {
    Program::prepare_self_contained(Arc::new(PreparedModule::from_slice(image).expect("prepares"))).expect("links")
}

/// A call chunk's head: entry `entry`, declaration 0, budget 10,000, input limit 65,535, depth
/// 0, range limit `range` (9 bytes); then an argument count of 0.
fn head(entry: u8, range: u8) -> Vec<u8> {
    vec![entry, 0, 0, 0, 0xFF, 0xFF, 0, range, 0, 0]
}

/// An evaluate case calling entrypoint `entry` (flags 0), or in call mode (flags 1 | 64) the
/// function `name` through a function value, with no arguments yet.
fn case(image: &[u8], entry: u8, by_value: Option<&str>) -> Vec<u8> {
    let mut call = head(entry, 0);
    let flags = match by_value {
        None => 0,
        Some(name) => {
            let function = HostRecord::new(Some("Function")).with("module", HostValue::str("reading.nx")).with("name", HostValue::str(name));
            encode_value(&HostValue::Record(function), &mut call);
            1 | 64
        }
    };
    let mut out = vec![flags];
    out.extend(write_chunks(&[&call, image]));
    out
}

/// A call-mode case (flags 1) with no input limit (8) and no arguments, over `image`: its
/// component calls start the entry's component `entry` picks; `range` only varies its bytes.
fn component_case(image: &[u8], entry: u8, range: u8) -> Vec<u8> {
    let mut data = vec![1 | 8];
    data.extend(write_chunks(&[&head(entry, range), image]));
    data
}

#[test]
fn typed_values_read_back_the_same_from_the_fuzz_format() {
    let image = image();
    let program = program(&image);
    let module = &program.modules()[0];
    let mut rng = Rng(0x5EED);
    let (mut values, mut largest) = (0usize, 0usize);
    for round in 0..400 {
        let name = FUNCTIONS[round % FUNCTIONS.len()];
        let Some(Decl::Function { params, .. }) = module.declaration_index(name).and_then(|index| module.decode_declaration(index)) else {
            panic!("{name} is a function of the program");
        };
        for value in TypedValues::new(&program).arguments(&mut rng, 0, &params) {
            let mut encoded = Vec::new();
            encode_value(&value, &mut encoded);
            let mut bytes = Bytes::new(&encoded);
            let read = ValueDecoder::new(&mut bytes).value();
            assert!(same_value(&read, &value), "{name}: read back as another value:\n{value:?}\n{read:?}");
            assert!(bytes.is_empty(), "{name}: bytes left after the value");
            values += 1;
            largest = largest.max(weight(&value));
        }
    }
    assert_eq!(values, 400);
    assert!(largest >= 1_000, "no value weighs 1,000 or more (largest {largest})");
}

/// What the call of `data` gave: `ok`, or its first diagnostic's code; and its input size.
fn outcome(data: &[u8]) -> (String, u64) {
    let (result, size) = call_outcome(data).expect("the case reaches its call");
    match result {
        Ok(_) => ("ok".to_string(), size),
        Err(error) => (error.diagnostics.first().map_or("none", |d| d.code).to_string(), size),
    }
}

/// 150 retypings of a call of each entrypoint, by name (which a retyping may point at another
/// entrypoint) and through a function value (which it keeps).
#[test]
fn retyped_calls_mostly_pass_the_boundary_and_stay_within_the_work_bound() {
    let image = image();
    let entrypoints = program(&image).entry().function_entrypoints().iter().map(|name| name.to_string()).collect::<Vec<_>>();
    for (entry, name) in entrypoints.iter().enumerate() {
        for by_value in [false, true] {
            let data = case(&image, entry as u8, by_value.then_some(name.as_str()));
            let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
            let mut largest = 0u64;
            for seed in 0..150u64 {
                let retyped = retype_call(&data, &mut Rng(seed * 2 + 1)).expect("the case links and calls a function");
                for paid in work_of_calls(&retyped) {
                    if let Err(message) = work_bound(paid) {
                        panic!("{name}, seed {seed}: {message}");
                    }
                }
                evaluate_case(&retyped);
                let (code, size) = outcome(&retyped);
                *outcomes.entry(code).or_default() += 1;
                largest = largest.max(size);
            }
            let ok = outcomes.get("ok").copied().unwrap_or(0);
            let refused_inside = outcomes.iter().filter(|(code, _)| code.starts_with("nx-ir-boundary")).map(|(_, n)| n).sum::<usize>();
            eprintln!("{name} (by value: {by_value}): {outcomes:?}, largest input {largest}");
            assert!(ok >= 45, "{name}: {ok} of 150 calls passed ({outcomes:?})");
            assert!(refused_inside >= 5, "{name}: {refused_inside} of 150 calls refused at the boundary ({outcomes:?})");
            // `chain` holds no list; called by name it may be pointed at a function that does.
            if !by_value || name != "chain" {
                assert!(largest >= 1_000, "{name}: the largest input was {largest}");
            }
        }
    }
}

#[test]
fn retyped_props_start_the_entry_component_within_the_work_bound() {
    let image = assemble_image(CARDS, &AssembleOptions::default()).expect("the component program assembles");
    let compiled = CompiledProgram::compile(&program(&image)).expect("compiles");
    // The entry's component, its props from the call.
    let data = component_case(&image, 0, 0);
    let (mut with_props, mut started, mut largest) = (0usize, 0usize, 0u64);
    for seed in 0..600u64 {
        let Some(retyped) = retype_call(&data, &mut Rng(seed * 2 + 1)) else { continue };
        let call = decoded_call(&retyped);
        if call.args.is_empty() || call.args.iter().any(|(name, _)| name.is_empty()) {
            continue;
        }
        with_props += 1;
        for paid in work_of_calls(&retyped) {
            if let Err(message) = work_bound(paid) {
                panic!("seed {seed}: {message}");
            }
        }
        evaluate_case(&retyped);
        let props: Vec<(&str, &HostValue)> = call.args.iter().map(|(name, value)| (name.as_str(), value)).collect();
        let (result, _) = initialize_paid(&compiled, "Card", &props, None, &call.limits);
        started += usize::from(result.is_ok());
        let size: u64 = props.iter().map(|(_, value)| measure_input_size(value, None).expect("measures")).sum();
        largest = largest.max(size);
    }
    eprintln!("Card: {with_props} calls with props, {started} started, largest input {largest}");
    assert!(with_props >= 100, "{with_props} of 600 retyped calls carried props");
    assert!(started * 2 >= with_props, "{started} of {with_props} calls with props started Card");
    assert!(largest >= 1_000, "the largest props were {largest}");
}

/// A component whose handler's action record requires a field: a bare record is refused.
const TAPPER: &str = "module tapper.nx fingerprint 1
requires update-records-v1 property-unions-v1 action-handlers-v1
entrypoints functions [] components [Button Counter]

component Button external
  props
    label: string required
  emits
    Tapped = Button.Tapped

record Button.Tapped
  times: int required
  tags: string*

component Counter
  state
    n: int = 0
  body =
    <Button label=\"Add\"
      onTapped=handler Button.Tapped action@1:Button.Tapped owner Counter =>
        <Counter.Update n=action.times />
    >
    </Button>

record Counter.Update update of Counter
  n: int
";

#[test]
fn dispatches_send_typed_action_records_within_the_work_bound() {
    let image = assemble_image(TAPPER, &AssembleOptions::default()).expect("the component program assembles");
    let (mut cases, mut dispatched_again) = (0usize, 0usize);
    for seed in 0..64u8 {
        // The entry's second component (Counter), no props; the seed varies the case's bytes.
        let data = component_case(&image, 1, seed);
        let calls = component_work_of_case(&data);
        for (_, paid) in &calls {
            if let Err(message) = work_bound(*paid) {
                panic!("seed {seed}: {message}");
            }
        }
        let dispatches = calls.iter().filter(|(call, _)| *call == ComponentCall::Dispatch).count();
        assert!(dispatches >= 1, "seed {seed}: Counter's handler was never dispatched ({calls:?})");
        cases += 1;
        // A second dispatch follows only a first that succeeded: its action records had `times`.
        dispatched_again += usize::from(dispatches == 2);
    }
    eprintln!("Counter: {dispatched_again} of {cases} cases dispatched twice");
    assert!(dispatched_again >= 8, "{dispatched_again} of {cases} first dispatches succeeded");
    assert!(dispatched_again < cases, "every first dispatch succeeded: no bare or bent action record was sent");
}
