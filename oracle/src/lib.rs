//! The oracle: nx-ir-core checked against the NX project's own Rust runtime, `nx-ir-runtime`
//! 0.7.0 for schema 5 and 0.10.0 for schema 6, on the conformance corpus and on our own programs.
//! The reference crates are dependencies here only; nothing of theirs is in nx-ir-core.
