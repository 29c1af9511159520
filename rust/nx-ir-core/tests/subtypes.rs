//! Subtypes at a site typed by an abstract record: ir-format §3.3 step 6 indexes every record
//! and every non-constant union case as a shape by `$type`, and a shape whose declaration
//! directly extends the expected record is acceptable there. A union that extends a record
//! makes each of its non-constant cases such a shape.

use nx_ir_core::assemble::{assemble, AssembleOptions};
use nx_ir_core::error::codes;
use nx_ir_core::eval::{
    evaluate_function_with, CompiledProgram, HostRecord, HostValue, HostValueBuilder, Limits, ModelProgram, Usage,
};

const SIGNALS: &str = r#"module signals.nx fingerprint 1
entrypoints functions [signal] components []

record Signal abstract
  label: string?

record Beep extends Signal
  label: string?
  volume: int required

union Event extends Signal
  case closed
    label: string?
    reason: string?
  case idle constant

union Unrelated
  case closed
    label: string?

function signal(s: Signal): Signal =
  s
"#;

fn program() -> CompiledProgram {
    let module = assemble(SIGNALS, &AssembleOptions::default()).expect("assembles");
    let linked = ModelProgram::link(vec![module]).expect("links");
    CompiledProgram::compile(&linked).expect("compiles")
}

fn signal(program: &CompiledProgram, argument: HostValue) -> Result<HostValue, nx_ir_core::error::IrError> {
    let mut usage = Usage::default();
    evaluate_function_with(program, "signal", &[Some(&argument)], &Limits::default(), &mut HostValueBuilder, &mut usage)
}

#[test]
fn a_union_case_is_accepted_where_the_record_its_union_extends_is_expected() {
    let program = program();
    let closed = HostValue::Record(HostRecord::new(Some("Event.closed")));
    assert_eq!(signal(&program, closed.clone()).expect("accepted"), closed);
    let with_fields = HostValue::Record(
        HostRecord::new(Some("Event.closed")).with("label", HostValue::str("door")).with("reason", HostValue::str("wind")),
    );
    assert_eq!(signal(&program, with_fields.clone()).expect("accepted"), with_fields);
}

#[test]
fn a_union_case_is_normalized_against_its_own_fields() {
    let program = program();
    let unknown = HostValue::Record(HostRecord::new(Some("Event.closed")).with("volume", HostValue::Int(3)));
    let error = signal(&program, unknown).expect_err("volume is not a field of Event.closed");
    assert_eq!(error.code(), codes::BOUNDARY_FIELD, "{error:?}");
    assert_eq!(error.message(), "Unknown s field 'volume'.");
}

#[test]
fn a_record_subtype_is_still_accepted_and_an_unrelated_case_is_not() {
    let program = program();
    let beep = HostValue::Record(HostRecord::new(Some("Beep")).with("volume", HostValue::Int(3)));
    assert_eq!(signal(&program, beep.clone()).expect("accepted"), beep);
    let unrelated = HostValue::Record(HostRecord::new(Some("Unrelated.closed")));
    let error = signal(&program, unrelated).expect_err("Unrelated does not extend Signal");
    assert_eq!(error.code(), codes::BOUNDARY_TYPE, "{error:?}");
    assert_eq!(error.message(), "Expected s to be a Signal, got 'Unrelated.closed'.");
    // A constant case is a bare name, not a shape: it names no subtype of the record.
    let constant = HostValue::Record(HostRecord::new(Some("Event.idle")));
    let error = signal(&program, constant).expect_err("a constant case is no shape");
    assert_eq!(error.message(), "Expected s to be a Signal, got 'Event.idle'.");
}
