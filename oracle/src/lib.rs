//! The oracle: nx-ir-core checked against the NX project's own Rust runtime, `nx-ir-runtime`
//! 0.7.0 for schema 5 and 0.10.0 for schema 6, on the conformance corpus and on probe programs
//! of our own (`tests/schema5_probes.rs`).
//! The reference crates are dependencies here only; nothing of theirs is in nx-ir-core.
//!
//! * [`corpus`]: finds the corpus (a missing corpus fails), reads each program's calls and
//!   assembles its images with nx-ir-core's assembler.
//! * [`engine`]: nx-ir-core and each reference release behind one [`Engine`](engine::Engine)
//!   trait, so every check is written once and run against the release it names.
//! * [`outcome`]: the one form both engines' values and diagnostics are compared in.
//! * [`agreement`]: every corpus call at every budget, in both engines.
//! * [`damage`]: every truncation and cell overwrite of an image, prepared in both engines.
//! * [`reference_written`]: a schema 6 image written by `nx-ir` 0.10.0's own writer, with its
//!   explain text and the reference runtime's values (the fixture under
//!   `tests/fixtures/reference-written`).
//! * [`differential`]: the differential fuzz target's case (`oracle/fuzz/`): a fuzzed image set
//!   and call in nx-ir-core and in the reference of the entry's schema, compared.

pub mod agreement;
pub mod corpus;
pub mod damage;
pub mod differential;
pub mod engine;
pub mod expected6;
pub mod lifecycles;
pub mod outcome;
pub mod programs6;
pub mod reference_written;
