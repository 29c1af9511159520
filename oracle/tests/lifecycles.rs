//! nx-ir-core against the reference runtimes on every component lifecycle of the corpus: as
//! schema 5 against `nx-ir-runtime` 0.7.0 and assembled as schema 6 against 0.10.0 (each call
//! at every budget, stored and restored instances, and the component's other calls; see
//! `nx_agent_oracle::lifecycles`). Run with `--nocapture` for the summary lines.

use nx_agent_oracle::corpus::{self, Program};
use nx_agent_oracle::engine::{Reference5, Reference6};
use nx_agent_oracle::lifecycles::lifecycles_agreement;
use std::time::Instant;

fn programs(test: &str, schema: u32) -> Option<Vec<Program>> {
    let dir = corpus::require(test)?;
    Some(corpus::programs(&dir, schema))
}

fn check(schema: u32, report: nx_agent_oracle::agreement::Report, started: Instant) {
    let summary = format!(
        "lifecycles schema {schema}: {} lifecycle runs linked, {} calls, {} budgets checked, {} disagreements ({:.1} s)",
        report.linked,
        report.calls,
        report.budgets,
        report.disagreements.len(),
        started.elapsed().as_secs_f64()
    );
    println!("{summary}");
    // 7 lifecycles in the corpus, each against the stripped and the full images.
    assert!(report.linked >= 14, "{summary}");
    assert!(report.budgets > 1_000, "{summary}");
    assert!(report.disagreements.is_empty(), "{summary}\n{}", report.disagreements.join("\n"));
}

#[test]
fn every_corpus_lifecycle_agrees_with_nx_ir_runtime_0_7() {
    let Some(programs) = programs("schema 5 lifecycle agreement", 5) else { return };
    let started = Instant::now();
    check(5, lifecycles_agreement::<Reference5>(&programs), started);
}

#[test]
fn every_corpus_lifecycle_agrees_with_nx_ir_runtime_0_10_as_schema_6() {
    let Some(programs) = programs("schema 6 lifecycle agreement", 6) else { return };
    let started = Instant::now();
    check(6, lifecycles_agreement::<Reference6>(&programs), started);
}
