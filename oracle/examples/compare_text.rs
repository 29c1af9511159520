//! Runs one call of a program written as explain text in nx-ir-core and in the reference
//! release of its schema, printing both outcomes with their messages (for triage):
//!
//!   cargo run --ignore-rust-version --manifest-path oracle/Cargo.toml --example compare_text -- \
//!       SCHEMA FILE.nxir.txt FUNCTION [BUDGET] [JSON-ARGUMENT...]
//!
//! The text is assembled by nx-ir-core's assembler as SCHEMA (5 or 6); BUDGET `-` is none.

use nx_agent_oracle::engine::{CallLimits, Engine, HostCall, Ours, Reference5, Reference6};
use nx_ir_core::assemble::{assemble_image_with_links, AssembleOptions};
use nx_ir_core::eval::json::from_json;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: compare_text SCHEMA FILE FUNCTION [BUDGET] [JSON-ARGUMENT...]");
        std::process::exit(2);
    }
    let schema: u32 = args[0].parse().expect("a schema number");
    let text = std::fs::read_to_string(&args[1]).expect("the text file");
    let options = AssembleOptions { source: None, version: String::new(), schema };
    let image = assemble_image_with_links(&text, &options, &[&text]).unwrap_or_else(|e| panic!("{e}"));
    let budget = args.get(3).and_then(|b| b.parse().ok());
    let values = args.iter().skip(4).map(|a| from_json(a).unwrap_or_else(|e| panic!("{a}: {e}"))).collect();
    let call = HostCall::Entrypoint { name: args[2].clone(), args: values };
    let limits = CallLimits { max_operations: budget, max_input_size: Some(1 << 40), ..CallLimits::default() };
    match schema {
        5 => both::<Reference5>(&image, &call, limits),
        _ => both::<Reference6>(&image, &call, limits),
    }
}

fn both<R: Engine>(image: &[u8], call: &HostCall, limits: CallLimits) {
    one::<Ours>(image, call, limits);
    one::<R>(image, call, limits);
    ours_message(image, call, limits);
}

/// nx-ir-core's messages (the outcomes above leave messages out).
fn ours_message(image: &[u8], call: &HostCall, limits: CallLimits) {
    use nx_ir_core::eval::{evaluate_function, Limits};
    let HostCall::Entrypoint { name, args } = call else { return };
    let Ok(program) = Ours::program_of(image) else { return };
    let limits = Limits { max_operations: limits.max_operations, ..Limits::default() };
    if let Err(error) = evaluate_function(&program, name, args, &limits) {
        for d in error.diagnostics.iter() {
            println!("  nx-ir-core says: {}: {}", d.code, d.message);
        }
    }
}

fn one<E: Engine>(image: &[u8], call: &HostCall, limits: CallLimits) {
    let outcome = E::program_of(image).map(|program| E::call(&program, call, limits));
    match outcome {
        Ok(outcome) => println!("{}: {outcome}", E::NAME),
        Err(diags) => println!("{}: prepare/link refused {}", E::NAME, nx_agent_oracle::outcome::Diags(&diags)),
    }
}
