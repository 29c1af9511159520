//! nx-ir-core against `nx-ir-runtime` 0.10.0 on schema 6: the conformance corpus assembled as
//! schema 6 (every call at every budget, and every damaged image), and our own schema 6 programs
//! (`rust/nx-ir-core/tests/schema6/programs.txt`: every call at every budget, the messages of the
//! codes schema 6 added included).
//!
//! Run with `--nocapture` to see each check's summary line. A test fails listing every
//! disagreement; the corpus tests fail when the corpus is missing unless
//! `NX_ORACLE_ALLOW_NO_CORPUS=1`.

use nx_agent_oracle::agreement::{corpus_agreement, programs_agreement};
use nx_agent_oracle::corpus::{self, Program};
use nx_agent_oracle::damage::programs_damage;
use nx_agent_oracle::engine::Reference6;
use nx_agent_oracle::lifecycles::own_lifecycles_agreement;
use nx_agent_oracle::programs6;
use std::sync::OnceLock;
use std::time::Instant;

/// The corpus programs assembled as schema 6, once for every test of this file.
fn corpus_programs(test: &str) -> Option<&'static [Program]> {
    static PROGRAMS: OnceLock<Vec<Program>> = OnceLock::new();
    let dir = corpus::require(test)?;
    Some(PROGRAMS.get_or_init(|| corpus::programs(&dir, 6)))
}

fn own_programs() -> &'static [Program] {
    static PROGRAMS: OnceLock<Vec<Program>> = OnceLock::new();
    PROGRAMS.get_or_init(programs6::programs)
}

fn fail_listing(what: &str, summary: &str, disagreements: &[String]) {
    assert!(disagreements.is_empty(), "{what}: {summary}\n{}", disagreements.join("\n"));
}

#[test]
fn every_corpus_call_agrees_at_every_budget_as_schema_6() {
    let Some(programs) = corpus_programs("schema 6 corpus agreement") else { return };
    let started = Instant::now();
    let report = corpus_agreement::<Reference6>(programs);
    let summary = report.summary(6);
    println!("corpus: {summary} ({} images prepared, {} links, {:.1} s)", report.prepared, report.linked, started.elapsed().as_secs_f64());
    assert!(report.calls >= 300, "only {} calls were made: {summary}", report.calls);
    assert!(report.budgets > 10_000, "only {} budgets were checked: {summary}", report.budgets);
    fail_listing("nx-ir-core and nx-ir-runtime 0.10.0 disagree", &summary, &report.disagreements);
}

#[test]
fn every_call_of_our_schema_6_programs_agrees_at_every_budget() {
    let programs = own_programs();
    let started = Instant::now();
    let report = programs_agreement::<Reference6>(programs);
    let summary = report.summary(6);
    let recorded: usize = programs.iter().map(|p| p.calls.len()).sum();
    println!(
        "our programs: {summary} ({} programs, {recorded} recorded calls, {} images, {:.1} s)",
        programs.len(),
        report.prepared,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(report.prepared, programs.iter().map(|p| p.images.len()).sum::<usize>(), "{summary}");
    assert!(report.calls >= recorded, "{summary}");
    fail_listing("nx-ir-core and nx-ir-runtime 0.10.0 disagree on our schema 6 programs", &summary, &report.disagreements);
}

#[test]
fn every_damaged_schema_6_image_is_refused_alike() {
    let Some(corpus) = corpus_programs("schema 6 damage agreement") else { return };
    let started = Instant::now();
    let mut swept = programs_damage::<Reference6>(corpus);
    let own = programs_damage::<Reference6>(own_programs());
    swept.images += own.images;
    swept.strided.extend(own.strided);
    swept.report.add(own.report);
    let summary = swept.summary(6);
    println!("{summary} ({:.1} s); strided: {}", started.elapsed().as_secs_f64(), swept.strided.join(", "));
    assert!(swept.images >= 40, "only {} images: {summary}", swept.images);
    assert!(swept.report.accepted > 0 && swept.report.accepted < swept.report.overwrites, "{summary}");
    fail_listing("nx-ir-core and nx-ir-runtime 0.10.0 prepare damaged images differently", &summary, &swept.report.disagreements);
}

#[test]
fn the_stored_expected_outcomes_are_the_reference_outcomes() {
    let path = nx_agent_oracle::expected6::path();
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    let now = nx_agent_oracle::expected6::render();
    assert!(
        stored == now,
        "{} is not what nx-ir-runtime 0.10.0 gives now: run `cargo run --ignore-rust-version --manifest-path oracle/Cargo.toml --bin schema6-expected`",
        path.display()
    );
}

/// Our programs' texts are what `nx-ir` 0.10.0 explains their images as (so they are written as
/// the NX tooling writes them), and the reference runtime prepares every image.
#[test]
fn our_schema_6_programs_explain_as_the_reference_explains_them() {
    let mut differences = Vec::new();
    for program in programs6::spec::programs() {
        for (module, image) in program.modules.iter().zip(program.assemble()) {
            let text = std::fs::read_to_string(programs6::spec::dir().join(&module.file)).expect("the text");
            if let Err(error) = ref6_runtime::PreparedModule::prepare(image.bytes.clone()) {
                differences.push(format!("{}: the reference runtime refuses it: {error:?}", module.file));
            }
            match ref6_ir::explain_nx_ir_image(&image.bytes) {
                Ok(explained) if explained == text => {}
                Ok(explained) => {
                    let line = explained.lines().zip(text.lines()).position(|(a, b)| a != b);
                    differences.push(format!("{}: explained differently from line {line:?}:\n{explained}", module.file));
                }
                Err(error) => differences.push(format!("{}: {error}", module.file)),
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

#[test]
fn every_lifecycle_of_our_schema_6_component_programs_agrees_at_every_budget() {
    let programs = own_programs();
    let started = Instant::now();
    let report = own_lifecycles_agreement::<Reference6>(programs);
    let recorded: usize = programs.iter().map(|p| p.lifecycles.len()).sum();
    let summary = format!(
        "our component programs: {recorded} lifecycles, {} calls, {} budgets checked, {} disagreements ({:.1} s)",
        report.calls,
        report.budgets,
        report.disagreements.len(),
        started.elapsed().as_secs_f64()
    );
    println!("{summary}");
    assert!(recorded >= 10 && report.linked == recorded, "{summary}");
    fail_listing("nx-ir-core and nx-ir-runtime 0.10.0 disagree on our component programs", &summary, &report.disagreements);
}
