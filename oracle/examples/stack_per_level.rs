//! How many bytes of native stack one level of nesting takes in nx-ir-core and in the reference
//! runtime of schema 6, for a call that stops at the nesting limit (docs/runtime-differences.md):
//!
//!   cargo run --release --ignore-rust-version --manifest-path oracle/Cargo.toml \
//!       --example stack_per_level -- tests/fixtures/nesting/nesting.nxir.txt record
//!
//! For each engine it finds the smallest stack allowance at which the call fails at
//! `maxExpressionNesting` rather than `maxStackBytes` (1,000 levels deep, the call depth lifted),
//! and prints it over 1,000, and which limit the default 1 MiB meets. The figures are the build's:
//! run it with `--release` for the profile the wheel is built with.

use nx_agent_oracle::engine::{CallLimits, Engine, HostCall, Ours, Reference6};
use nx_agent_oracle::outcome::Outcome;
use nx_ir_core::assemble::{assemble_image_with_links, AssembleOptions};

/// The limit the call's failure names (or `ok`).
fn limit(outcome: &Outcome) -> String {
    match &outcome.result {
        Ok(_) => "ok".to_string(),
        Err(diags) => diags[0].limit.as_ref().map_or_else(|| diags[0].code.clone(), |l| l.name.clone()),
    }
}

/// The smallest allowance (to 64 bytes) at which `stops` does not name `maxStackBytes`.
fn allowance(stops: impl Fn(usize) -> String) -> usize {
    let (mut low, mut high) = (16usize << 10, 64usize << 20);
    while high - low > 64 {
        let middle = (low + high) / 2;
        if stops(middle) == "maxStackBytes" {
            low = middle;
        } else {
            high = middle;
        }
    }
    high
}

fn measure<E: Engine>(image: &[u8], call: &HostCall) {
    let program = E::program_of(image).unwrap_or_else(|d| panic!("{} refuses or does not link the image: {d:?}", E::NAME));
    let stops = |bytes: Option<usize>| {
        let limits = CallLimits { max_call_depth: Some(u32::MAX), max_stack_bytes: bytes, ..CallLimits::default() };
        limit(&E::call(&program, call, limits))
    };
    let bytes = allowance(|bytes| stops(Some(bytes)));
    println!("{}: {} bytes a level; at the default 1 MiB: {}", E::NAME, bytes / 1000, stops(None));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, function] = &args[..] else {
        eprintln!("usage: stack_per_level FILE.nxir.txt FUNCTION");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).expect("the text file");
    let options = AssembleOptions { source: None, version: String::new(), schema: 6 };
    let image = assemble_image_with_links(&text, &options, &[&text]).unwrap_or_else(|e| panic!("{e}"));
    let call = HostCall::Entrypoint { name: function.clone(), args: vec![] };
    // Room for the largest allowance tried, and the engines' own frames above it.
    let worker = std::thread::Builder::new().stack_size(256 << 20).spawn(move || {
        measure::<Ours>(&image, &call);
        measure::<Reference6>(&image, &call);
    });
    worker.expect("a thread").join().expect("the measurement ran");
}
