//! Corpus agreement: every call of every corpus program evaluated in nx-ir-core and in a
//! reference release, with no budget, with an ample one, and with every budget from 0 to the
//! call's count, each outcome compared in full.
//!
//! The calls of a program are the ones `program.json` records (with their arguments), and every
//! function entrypoint of every module of the program called with no arguments (a function that
//! needs arguments then fails in both engines, and that failure is compared too). Each runs
//! against the stripped images and against the full ones.

use crate::corpus::{Call, Image, Program};
use crate::engine::{CallLimits, Engine, Ours};
use crate::outcome::{Diags, Outcome};

/// An ample budget and input limit: what the corpus' counts are measured under.
pub const AMPLE: u64 = 1 << 40;

/// What a run compared and where the engines disagreed.
#[derive(Debug, Default)]
pub struct Report {
    /// Calls made (per image variant).
    pub calls: usize,
    /// Budgets each call was run under, summed over the calls.
    pub budgets: usize,
    /// Images prepared and modules linked in both engines.
    pub prepared: usize,
    pub linked: usize,
    /// Every disagreement, one line each.
    pub disagreements: Vec<String>,
}

impl Report {
    /// The one summary line.
    pub fn summary(&self, schema: u32) -> String {
        format!(
            "oracle schema {schema}: {} calls, {} budgets checked, {} disagreements",
            self.calls,
            self.budgets,
            self.disagreements.len()
        )
    }
}

/// Runs every call of every program in nx-ir-core and in `R`.
pub fn corpus_agreement<R: Engine>(programs: &[Program]) -> Report {
    let mut report = Report::default();
    for program in programs {
        for full in [false, true] {
            check_variant::<R>(program, full, &mut report);
        }
    }
    report
}

/// Runs every call of programs of our own (one image per module: `Image::stripped` false) in
/// nx-ir-core and in `R`.
pub fn programs_agreement<R: Engine>(programs: &[Program]) -> Report {
    let mut report = Report::default();
    for program in programs {
        check_variant::<R>(program, true, &mut report);
    }
    report
}

fn check_variant<R: Engine>(program: &Program, full: bool, report: &mut Report) {
    let variant = format!("{} [{}]", program.name, if full { "full" } else { "stripped" });
    let images = program.variant(full);

    // Prepare every image in both engines.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut modules: Vec<&Image> = Vec::new();
    for image in &images {
        match (Ours::prepare(&image.bytes), R::prepare(&image.bytes)) {
            (Ok(a), Ok(b)) => {
                let (facts_a, facts_b) = (Ours::facts(&a), R::facts(&b));
                if facts_a != facts_b {
                    report.disagreements.push(format!(
                        "{variant} {}: prepared as {facts_a:?} by {} and {facts_b:?} by {}",
                        image.file,
                        Ours::NAME,
                        R::NAME
                    ));
                }
                report.prepared += 1;
                ours.push(a);
                theirs.push(b);
                modules.push(image);
            }
            (a, b) => report.disagreements.push(format!(
                "{variant} {}: prepare: {} {} / {} {}",
                image.file,
                Ours::NAME,
                prepared(&a.map(|_| ())),
                R::NAME,
                prepared(&b.map(|_| ()))
            )),
        }
    }

    // Link each module as the entry, and make its calls.
    for (at, image) in modules.iter().enumerate() {
        let calls = calls_of(program, &image.identity, &R::facts(&theirs[at]).function_entrypoints);
        let linked = (Ours::link(&ours[at], &ours), R::link(&theirs[at], &theirs));
        let (ours_program, their_program) = match linked {
            (Ok(a), Ok(b)) => (a, b),
            (Err(a), Err(b)) if a == b => continue,
            (a, b) => {
                report.disagreements.push(format!(
                    "{variant} link {}: {} {} / {} {}",
                    image.identity,
                    Ours::NAME,
                    prepared(&a.map(|_| ())),
                    R::NAME,
                    prepared(&b.map(|_| ()))
                ));
                continue;
            }
        };
        report.linked += 1;
        for call in &calls {
            report.calls += 1;
            let name = format!("{variant} {}", call.key());
            sweep::<R>(&ours_program, &their_program, call, &name, report);
        }
    }
}

/// The calls of `module`: those `program.json` records for it, then each of its function
/// entrypoints with no arguments unless a recorded call already makes that call.
fn calls_of(program: &Program, module: &str, entrypoints: &[String]) -> Vec<Call> {
    let mut calls: Vec<Call> = program.calls.iter().filter(|call| call.module == module).cloned().collect();
    for function in entrypoints {
        let recorded = calls.iter().any(|call| &call.function == function && call.arguments.is_empty());
        if !recorded {
            calls.push(Call { module: module.to_string(), function: function.clone(), case: None, arguments: Vec::new() });
        }
    }
    calls
}

/// One call under no budget, an ample budget and input limit, one input unit too few, and every
/// budget from 0 to its count.
fn sweep<R: Engine>(ours: &<Ours as Engine>::Program, theirs: &R::Program, call: &Call, name: &str, report: &mut Report) {
    let args: Vec<&str> = call.arguments.iter().map(String::as_str).collect();
    let compare = |limits: CallLimits, report: &mut Report| -> (Outcome, Outcome) {
        let a = Ours::evaluate(ours, &call.function, &args, limits);
        let b = R::evaluate(theirs, &call.function, &args, limits);
        if a != b {
            report.disagreements.push(format!("{name} {}: {} {a} / {} {b}", describe(limits), Ours::NAME, R::NAME));
        }
        (a, b)
    };

    compare(CallLimits::default(), report);
    let (a, b) = compare(CallLimits { max_operations: Some(AMPLE), max_input_size: Some(AMPLE), ..CallLimits::default() }, report);
    if let Some(size) = b.input_size.filter(|size| *size > 0) {
        compare(CallLimits { max_input_size: Some(size - 1), ..CallLimits::default() }, report);
    }
    let count = a.operations.unwrap_or(0).max(b.operations.unwrap_or(0));
    for budget in 0..=count {
        compare(CallLimits { max_operations: Some(budget), ..CallLimits::default() }, report);
        report.budgets += 1;
    }
}

fn describe(limits: CallLimits) -> String {
    match (limits.max_operations, limits.max_input_size) {
        (None, None) => "unlimited".to_string(),
        (Some(AMPLE), Some(AMPLE)) => "ample budget and input limit".to_string(),
        (Some(budget), None) => format!("budget {budget}"),
        (None, Some(size)) => format!("input limit {size}"),
        (Some(budget), Some(size)) => format!("budget {budget}, input limit {size}"),
    }
}

fn prepared(result: &Result<(), Vec<crate::outcome::Diag>>) -> String {
    match result {
        Ok(()) => "accepted".to_string(),
        Err(diags) => format!("refused {}", Diags(diags)),
    }
}
