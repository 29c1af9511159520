//! Replays inputs of the differential fuzz target outside the fuzzer (no sanitizer, no
//! instrumentation), printing each disagreement in full and the verdict counts:
//!
//!   cargo run --ignore-rust-version --manifest-path oracle/Cargo.toml --example differential_replay -- PATH...
//!
//! Each PATH is an input file or a directory of them (a libFuzzer corpus, its artifacts, or
//! `oracle/tests/regressions/differential`). With `--explain` first, each disagreeing input's
//! call and images are printed too (each image as nx-ir-core explains it). Exits with 1 when any
//! input disagrees.

use nx_agent_oracle::differential::{differential_case, Verdict, COUNTS};
use nx_ir_core::testing::fuzz::{Bytes, Call};
use std::path::{Path, PathBuf};

fn inputs(path: &Path) -> Vec<PathBuf> {
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    }
}

fn main() {
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let explain = paths.first().is_some_and(|p| p.as_os_str() == "--explain");
    if explain {
        paths.remove(0);
    }
    if paths.is_empty() {
        eprintln!("usage: differential_replay PATH...");
        std::process::exit(2);
    }
    let mut disagreed = 0;
    for path in paths.iter().flat_map(|p| inputs(p)) {
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Verdict::Disagreed(what) = differential_case(&data) {
            disagreed += 1;
            println!("{}: {what}", path.display());
            if explain {
                show(&data);
            }
        }
    }
    println!("{COUNTS}");
    std::process::exit(i32::from(disagreed > 0));
}

/// The input's call and each image's explain text.
fn show(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let flags = bytes.u8();
    let call = Call::decode(flags, bytes.chunk().unwrap_or_default());
    println!("flags {flags:#010b}, call {call:?}");
    for (at, image) in std::iter::from_fn(|| bytes.chunk()).enumerate() {
        match nx_ir_core::explain::explain_image(image) {
            Ok(text) => println!("--- image {at} ({} bytes)\n{text}", image.len()),
            Err(error) => println!("--- image {at} ({} bytes): not explained: {error}", image.len()),
        }
    }
}
