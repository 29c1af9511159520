//! nx-ir-core against `nx-ir-runtime` 0.7.0 on the schema 5 conformance corpus.
//!
//! Run with `--nocapture` to see each check's summary line. Each test fails, listing every
//! disagreement, when the two engines disagree anywhere; and fails when the corpus is missing
//! unless `NX_ORACLE_ALLOW_NO_CORPUS=1`.

use nx_agent_oracle::agreement::corpus_agreement;
use nx_agent_oracle::corpus::{self, Program};
use nx_agent_oracle::damage::{damage_agreement, DamageReport};
use nx_agent_oracle::engine::Reference5;
use std::sync::OnceLock;
use std::time::Instant;

/// The corpus programs, read and assembled once for every test of this file.
fn programs(test: &str) -> Option<&'static [Program]> {
    static PROGRAMS: OnceLock<Vec<Program>> = OnceLock::new();
    let dir = corpus::require(test)?;
    Some(PROGRAMS.get_or_init(|| corpus::programs(&dir)))
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

/// Images up to this size have every cell overwritten; the sweep is quadratic in an image's
/// size, and the large-catalog images (23, 77 and 93 KB) are swept at a stride unless
/// `NX_ORACLE_FULL_DAMAGE=1`.
const FULL_SWEEP_BYTES: usize = 16 << 10;

fn stride(len: usize) -> usize {
    if len <= FULL_SWEEP_BYTES || std::env::var("NX_ORACLE_FULL_DAMAGE").as_deref() == Ok("1") {
        1
    } else {
        len.div_ceil(FULL_SWEEP_BYTES) | 1
    }
}

#[test]
fn every_damaged_corpus_image_is_refused_alike() {
    let Some(programs) = programs("schema 5 damage agreement") else { return };
    let started = Instant::now();
    let mut report = DamageReport::default();
    let mut images = 0;
    let mut strided = Vec::new();
    for program in programs {
        for image in &program.images {
            let name = format!("{}/{}", program.name, image.file);
            let stride = stride(image.bytes.len());
            if stride > 1 {
                strided.push(format!("{name} ({} bytes, one cell in {stride})", image.bytes.len()));
            }
            report.add(damage_agreement::<Reference5>(&name, &image.bytes, stride));
            images += 1;
        }
    }
    let summary = format!(
        "oracle schema 5 damage: {images} images, {} truncations, {} overwrites ({} accepted by both), {} disagreements",
        report.truncations,
        report.overwrites,
        report.accepted,
        report.disagreements.len()
    );
    println!("{summary} ({:.1} s); strided: {}", started.elapsed().as_secs_f64(), strided.join(", "));
    assert!(images >= 40, "only {images} images: {summary}");
    assert!(report.accepted > 0 && report.accepted < report.overwrites, "{summary}");
    fail_listing("nx-ir-core and nx-ir-runtime 0.7.0 prepare damaged images differently", &summary, &report.disagreements);
}
