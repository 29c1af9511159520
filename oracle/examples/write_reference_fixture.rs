//! Writes the reference-written fixture (`nx_agent_oracle::reference_written`): the booking
//! module laid out by `nx-ir` 0.10.0's `write_nx_ir_image`, its explain text by `nx-ir` 0.10.0,
//! and the values `nx-ir-runtime` 0.10.0 gives for its calls, into
//! `tests/fixtures/reference-written/` at the repository's root:
//!
//!   cargo run --ignore-rust-version --manifest-path oracle/Cargo.toml --example write_reference_fixture

use nx_agent_oracle::reference_written::{fixture, EXPLAIN_FILE, FIXTURE_DIR, IMAGE_FILE, RUNS_FILE};
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(FIXTURE_DIR);
    std::fs::create_dir_all(&dir).expect("the fixture directory");
    let fixture = fixture();
    for (file, bytes) in [(IMAGE_FILE, &fixture.image[..]), (EXPLAIN_FILE, fixture.explain.as_bytes()), (RUNS_FILE, fixture.runs.as_bytes())] {
        std::fs::write(dir.join(file), bytes).expect("a fixture file");
        println!("{}: {} bytes", dir.join(file).display(), bytes.len());
    }
}
