//! The image written by `nx-ir` 0.10.0's own writer (`nx_agent_oracle::reference_written`): the
//! committed fixture is byte for byte what the writer writes, explains and evaluates now, and
//! nx-ir-core reads it as the reference does (prepare, explain text, and each recorded call's
//! value, operations and input size).

use nx_agent_oracle::engine::{value_of_host, CallLimits, Engine, HostCall, Ours};
use nx_agent_oracle::reference_written::{fixture, EXPLAIN_FILE, FIXTURE_DIR, IMAGE_FILE, MAX_INPUT_SIZE, MAX_OPERATIONS, RUNS_FILE};
use nx_ir_core::eval::json::from_json;
use nx_ir_core::eval::HostValue;
use std::path::PathBuf;

fn committed(file: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(FIXTURE_DIR).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (write it with the write_reference_fixture example)", path.display()))
}

#[test]
fn the_fixture_is_what_the_reference_writes_now() {
    let now = fixture();
    assert!(committed(IMAGE_FILE) == now.image, "{IMAGE_FILE} differs from what nx-ir 0.10.0 writes now");
    assert_eq!(String::from_utf8(committed(EXPLAIN_FILE)).expect("UTF-8"), now.explain, "{EXPLAIN_FILE}");
    assert_eq!(String::from_utf8(committed(RUNS_FILE)).expect("UTF-8"), now.runs, "{RUNS_FILE}");
    println!("reference-written fixture: {IMAGE_FILE} {} bytes, explain {} lines", now.image.len(), now.explain.lines().count());
}

#[test]
fn nx_ir_core_reads_the_reference_written_image_as_the_reference_does() {
    let image = committed(IMAGE_FILE);
    let module = Ours::prepare(&image).unwrap_or_else(|d| panic!("nx-ir-core refuses the image: {d:?}"));
    assert_eq!(module.schema(), 6);
    let text = nx_ir_core::explain::explain_image(&image).expect("nx-ir-core explains it");
    assert_eq!(text, String::from_utf8(committed(EXPLAIN_FILE)).expect("UTF-8"));

    let program = Ours::link(&module, &[]).unwrap_or_else(|d| panic!("nx-ir-core does not link it: {d:?}"));
    let runs = from_json(&String::from_utf8(committed(RUNS_FILE)).expect("UTF-8")).expect("JSON");
    let field = |value: &HostValue, name: &str| match value {
        HostValue::Record(record) => record.get(name).cloned().unwrap_or_else(|| panic!("no {name}")),
        _ => panic!("not a record"),
    };
    let HostValue::List(runs) = field(&runs, "runs") else { panic!("runs is not a list") };
    assert!(runs.len() >= 5);
    let limits = CallLimits { max_operations: Some(MAX_OPERATIONS), max_input_size: Some(MAX_INPUT_SIZE), ..CallLimits::default() };
    for run in &runs {
        let HostValue::Str(function) = field(run, "function") else { panic!("function") };
        let call = match field(run, "arguments") {
            HostValue::List(args) => HostCall::Entrypoint { name: function.clone(), args },
            HostValue::Record(record) => HostCall::Function {
                function: from_json(&format!(r#"{{"$type":"Function","module":"booking.nx","name":"{function}"}}"#)).expect("JSON"),
                args: record.fields,
            },
            other => panic!("arguments {other:?}"),
        };
        let outcome = Ours::call(&program, &call, limits);
        let value = outcome.result.unwrap_or_else(|d| panic!("{function}: {d:?}"));
        assert_eq!(value, value_of_host(&field(run, "value")), "{function}");
        assert_eq!(outcome.operations, Some(int(&field(run, "operations"))), "{function}: operations");
        assert_eq!(outcome.input_size, Some(int(&field(run, "inputSize"))), "{function}: input size");
    }
}

fn int(value: &HostValue) -> u64 {
    match value {
        HostValue::Int(i) => *i as u64,
        other => panic!("not an integer: {other:?}"),
    }
}
