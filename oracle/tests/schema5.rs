//! nx-ir-core against `nx-ir-runtime` 0.7.0 on the schema 5 conformance corpus.
//!
//! Run with `--nocapture` to see each check's summary line. Each test fails, listing every
//! disagreement, when the two engines disagree anywhere; and fails when the corpus is missing
//! unless `NX_ORACLE_ALLOW_NO_CORPUS=1`.

use nx_agent_oracle::agreement::corpus_agreement;
use nx_agent_oracle::corpus::{self, Program};
use nx_agent_oracle::damage::programs_damage;
use nx_agent_oracle::engine::Reference5;
use std::sync::OnceLock;
use std::time::Instant;

/// The corpus programs, read and assembled once for every test of this file.
fn programs(test: &str) -> Option<&'static [Program]> {
    static PROGRAMS: OnceLock<Vec<Program>> = OnceLock::new();
    let dir = corpus::require(test)?;
    Some(PROGRAMS.get_or_init(|| corpus::programs(&dir, 5)))
}

fn fail_listing(what: &str, summary: &str, disagreements: &[String]) {
    assert!(disagreements.is_empty(), "{what}: {summary}\n{}", disagreements.join("\n"));
}

#[test]
fn every_corpus_call_agrees_at_every_budget() {
    let Some(programs) = programs("schema 5 corpus agreement") else { return };
    let started = Instant::now();
    let report = corpus_agreement::<Reference5>(programs);
    let summary = report.summary(5);
    println!("{summary} ({} images prepared, {} links, {:.1} s)", report.prepared, report.linked, started.elapsed().as_secs_f64());
    // The corpus has about two hundred calls; far fewer means the harness lost some.
    assert!(report.calls >= 300, "only {} calls were made: {summary}", report.calls);
    assert!(report.budgets > 10_000, "only {} budgets were checked: {summary}", report.budgets);
    fail_listing("nx-ir-core and nx-ir-runtime 0.7.0 disagree", &summary, &report.disagreements);
}

#[test]
fn every_damaged_corpus_image_is_refused_alike() {
    let Some(programs) = programs("schema 5 damage agreement") else { return };
    let started = Instant::now();
    let swept = programs_damage::<Reference5>(programs);
    let summary = swept.summary(5);
    println!("{summary} ({:.1} s); strided: {}", started.elapsed().as_secs_f64(), swept.strided.join(", "));
    assert!(swept.images >= 40, "only {} images: {summary}", swept.images);
    assert!(swept.report.accepted > 0 && swept.report.accepted < swept.report.overwrites, "{summary}");
    fail_listing("nx-ir-core and nx-ir-runtime 0.7.0 prepare damaged images differently", &summary, &swept.report.disagreements);
}
