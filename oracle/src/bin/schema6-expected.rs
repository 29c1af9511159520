//! Writes `rust/nx-ir-core/tests/schema6/expected.json` from `nx-ir-runtime` 0.10.0's outcomes
//! for every recorded call of our schema 6 programs (see `nx_agent_oracle::expected6`).
//!
//! `cargo run --ignore-rust-version --manifest-path oracle/Cargo.toml --bin schema6-expected`

fn main() {
    let path = nx_agent_oracle::expected6::path();
    let text = nx_agent_oracle::expected6::render();
    std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("wrote {} ({} calls)", path.display(), text.lines().filter(|l| l.starts_with('{') && l.len() > 2).count());
}
