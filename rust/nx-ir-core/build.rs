//! Whether the NX IR conformance corpus is there for the tests that read it: without it, the
//! crate is built with `cfg(nx_ir_no_corpus)`, and each corpus test is marked `ignore` with a
//! reason that says how to run it, so `cargo test` lists it as ignored instead of a passing
//! test that checked nothing. The corpus is the folder named by `NX_IR_CONFORMANCE`, else
//! `../shared/nx-ir-conformance` beside the checkout, holding `manifest.json` (as for the Python
//! tests). The library itself does not use the flag.

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(nx_ir_no_corpus)");
    println!("cargo::rerun-if-env-changed=NX_IR_CONFORMANCE");
    println!("cargo::rerun-if-changed=build.rs");
    let folder = match env::var_os("NX_IR_CONFORMANCE") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../../../shared/nx-ir-conformance"),
    };
    let manifest = folder.join("manifest.json");
    if manifest.is_file() {
        // Seen again if it goes away. (A corpus placed later beside the checkout is seen once
        // NX_IR_CONFORMANCE is set, or after `cargo clean -p nx-ir-core`: watching a path that
        // does not exist would rebuild the crate on every run.)
        println!("cargo::rerun-if-changed={}", manifest.display());
    } else {
        println!("cargo::rustc-cfg=nx_ir_no_corpus");
    }
}
