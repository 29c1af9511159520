//! The damage sweep (conformance cases B1 and B2) over the prelude, the hand-built images and
//! every corpus image, with linking and evaluation of what still prepares; and self-referencing
//! entries (B20) over every corpus image.

mod support;

use nx_ir_core::eval::{evaluate_function, CompiledProgram, Limits};
use nx_ir_core::explain::explain_image;
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::model::{kinds, Module};
use nx_ir_core::prelude::prelude_model;
use nx_ir_core::testing::{damage_sweep, damage_sweep_with, DAMAGE_VALUES};
use nx_ir_core::writer::encode;
use nx_ir_core::IrError;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use support::*;

fn sweep(model: &Module) {
    let image = encode(model);
    let report = damage_sweep(&image);
    assert_eq!(report.truncations, image.len() / 4);
    assert_eq!(report.overwrites, image.len() / 4 * DAMAGE_VALUES.len());
    assert_eq!(report.refused + report.prepared, report.overwrites);
    assert!(report.refused > 0 && report.prepared > 0, "{report:?}");
}

#[test]
fn the_prelude_survives_damage() {
    sweep(&prelude_model(5).expect("the prelude assembles"));
}

/// The schema 6 prelude and samples: every damaged image that prepares is linked and, every
/// [`EVALUATE_EVERY`]-th, has every function entrypoint called (schema 6 nodes fail coded).
#[test]
fn the_schema_6_prelude_and_samples_survive_damage() {
    sweep(&prelude_model(kinds::SCHEMA_6).expect("the prelude assembles"));
    let mut figures = Figures::default();
    let mut phase = 0usize;
    for (name, _) in nx_ir_core::testing::schema6::SAMPLES {
        let image = encode(&nx_ir_core::testing::schema6::sample(name));
        let report = damage_sweep_with(&image, 1, |what, module| {
            let evaluate = phase == 0;
            phase = (phase + 1) % EVALUATE_EVERY;
            link_and_evaluate(module, &HashMap::new(), evaluate, &mut figures, &format!("{name}, {what}"));
        });
        assert_eq!(report.refused + report.prepared, report.overwrites, "{name}");
        assert!(report.refused > 0 && report.prepared > 0, "{name}: {report:?}");
    }
    assert!(figures.linked > 0 && figures.calls > 0, "{figures:?}");
}

#[test]
fn the_sample_survives_damage() {
    sweep(&sample());
}

#[test]
fn the_stripped_sample_survives_damage() {
    let mut model = sample();
    model.debug = None;
    sweep(&model);
}

#[test]
fn the_dependency_survives_damage() {
    sweep(&dependency("1", "Thing"));
}

/// Images up to this size have every cell overwritten (as the reference runtimes do); a larger
/// one (the large-catalog images, 60–90 KiB) every few cells, about as many as a 16 KiB image
/// has, spread over the whole image. A sweep costs the square of the image's size: overwriting
/// every cell of every image, linking all and evaluating all took 166 s in the dev profile
/// (opt-level 1), 43 s with this limit, about 30 s with the evaluation sample below. Every
/// truncation of every image is tried.
const FULL_SWEEP_BYTES: usize = 16 << 10;

/// The stride (in cells) of the overwrites of an image of `len` bytes: 1 up to
/// [`FULL_SWEEP_BYTES`], else odd so that it does not keep hitting the same cell of
/// equal-sized entries.
fn cell_stride(len: usize) -> usize {
    if len <= FULL_SWEEP_BYTES {
        1
    } else {
        len.div_ceil(FULL_SWEEP_BYTES) | 1
    }
}

/// Every damaged image that prepares is linked; every this-many-th of them (counted over the
/// whole run, so the sample is deterministic; prime to the four damage values so that the
/// sample takes each value of a cell in turn) is also compiled and has every function
/// entrypoint called.
const EVALUATE_EVERY: usize = 3;

/// How far the damaged corpus images got.
#[derive(Debug, Default)]
struct Figures {
    images: usize,
    bytes: usize,
    truncations: usize,
    overwrites: usize,
    refused: usize,
    prepared: usize,
    link_refused: usize,
    linked: usize,
    compile_refused: usize,
    compiled: usize,
    calls: usize,
    calls_ok: usize,
}

/// Runs `f` on a thread of its own and fails if it takes longer than `limit`: a hang is a
/// failure, not a stuck test run.
fn within<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    let worker = thread::spawn(move || {
        let _ = send.send(f());
    });
    match receive.recv_timeout(limit) {
        Ok(value) => value,
        // The sender is gone without a value: the worker panicked; show its panic.
        Err(RecvTimeoutError::Disconnected) => match worker.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("the worker sends before it ends"),
        },
        Err(RecvTimeoutError::Timeout) => panic!("{what} did not finish within {limit:?}: a hang"),
    }
}

/// Every error must carry a diagnostic with a code.
fn coded(error: &IrError, what: &str) {
    assert!(
        !error.diagnostics.is_empty() && error.diagnostics.iter().all(|d| d.code.starts_with("nx-")),
        "{what}: refused without a coded diagnostic: {error:?}"
    );
}

/// Links a damaged image that prepared against the program's intact stripped modules and, where
/// that links, calls every function entrypoint with no arguments under a small budget.
fn link_and_evaluate(
    module: PreparedModule,
    intact: &HashMap<String, Arc<PreparedModule>>,
    evaluate: bool,
    figures: &mut Figures,
    what: &str,
) {
    let linked = Program::link(Arc::new(module), &mut |identity| Ok(intact.get(identity).cloned()), LinkOptions::default());
    let program = match linked {
        Ok(program) => program,
        Err(error) => {
            coded(&error, &format!("{what}: linking"));
            figures.link_refused += 1;
            return;
        }
    };
    figures.linked += 1;
    if !evaluate {
        return;
    }
    let compiled = match CompiledProgram::compile(&program) {
        Ok(compiled) => compiled,
        Err(error) => {
            coded(&error, &format!("{what}: compiling"));
            figures.compile_refused += 1;
            return;
        }
    };
    figures.compiled += 1;
    let limits = Limits::with_budget(10_000);
    for name in program.entry().function_entrypoints() {
        figures.calls += 1;
        match evaluate_function(&compiled, name, &[], &limits) {
            Ok(_) => figures.calls_ok += 1,
            Err(error) => coded(&error, &format!("{what}: calling {name:?}")),
        }
    }
}

/// The reader's damage sweep (B1, B2) over every corpus image, stripped and full with its source:
/// every truncation and every cell overwritten with each of the damage values is refused with a
/// coded error or prepares into a consistent module; each that prepares is linked against the
/// program's intact stripped modules, and each that links has every function entrypoint called
/// with no arguments under `max_operations = 10_000`: `Ok`, or an error with a coded diagnostic,
/// never a panic or a hang.
#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn every_corpus_image_survives_damage() {
    let Some(dir) = corpus::dir_or_skip("corpus damage") else {
        return;
    };
    let started = Instant::now();
    let figures = within(Duration::from_secs(600), "the corpus damage sweep", move || {
        let mut figures = Figures::default();
        let mut phase = 0usize;
        for program in corpus::programs(&dir) {
            let texts = corpus::program_texts(&program);
            let linked = corpus::linked(&texts);
            let intact: HashMap<String, Arc<PreparedModule>> = corpus::variant(&program, &texts, false)
                .into_iter()
                .map(|input| {
                    let image = input.image(&linked).unwrap_or_else(|e| panic!("{}: {e}", input.file));
                    let module = PreparedModule::from_vec(image).unwrap_or_else(|e| panic!("{}: {e}", input.file));
                    (input.identity, Arc::new(module))
                })
                .collect();
            for input in corpus::every_text(&program, &texts) {
                let name = format!("{}/{}", corpus::name(&program), input.file);
                let image = input.image(&linked).unwrap_or_else(|e| panic!("{name} does not assemble: {e}"));
                let stride = cell_stride(image.len());
                let report = damage_sweep_with(&image, stride, |what, module| {
                    let evaluate = phase == 0;
                    phase = (phase + 1) % EVALUATE_EVERY;
                    link_and_evaluate(module, &intact, evaluate, &mut figures, &format!("{name}, {what}"));
                });
                assert_eq!(report.truncations, image.len() / 4, "{name}");
                assert_eq!(report.overwrites, (image.len() / 4).div_ceil(stride) * DAMAGE_VALUES.len(), "{name}");
                assert_eq!(report.refused + report.prepared, report.overwrites, "{name}");
                figures.images += 1;
                figures.bytes += image.len();
                figures.truncations += report.truncations;
                figures.overwrites += report.overwrites;
                figures.refused += report.refused;
                figures.prepared += report.prepared;
            }
        }
        figures
    });
    println!("corpus damage: {figures:?} in {:.1?}", started.elapsed());
    assert!(figures.images > 0, "the corpus holds no images");
    assert!(figures.prepared > 0 && figures.linked > 0 && figures.calls > 0, "{figures:?}");
}

/// B20: every cell of every type and node entry of every corpus image set to the entry's own
/// index (a self-reference, the shortest cycle) is refused with a coded error, or the image
/// prepares and explains, and explaining terminates.
#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn self_references_are_refused_or_explained() {
    let Some(dir) = corpus::dir_or_skip("self references") else {
        return;
    };
    let (tried, refused) = within(Duration::from_secs(300), "the self-reference sweep", move || {
        let (mut tried, mut refused) = (0usize, 0usize);
        for program in corpus::programs(&dir) {
            let texts = corpus::program_texts(&program);
            let linked = corpus::linked(&texts);
            for input in corpus::every_text(&program, &texts) {
                let name = format!("{}/{}", corpus::name(&program), input.file);
                let image = input.image(&linked).unwrap_or_else(|e| panic!("{name} does not assemble: {e}"));
                for kind in [kinds::section::TYPES, kinds::section::NODES] {
                    let (offset, _) = section(&image, kind);
                    let count = cell(&image, offset) as usize;
                    for index in 0..count {
                        let start = cell(&image, offset + 4 * (1 + index)) as usize;
                        let end = cell(&image, offset + 4 * (2 + index)) as usize;
                        for at in 0..end - start {
                            let mut damaged = image.clone();
                            set_cell(&mut damaged, entry_cell(&image, kind, index, at), index as u32);
                            let what = format!("{name}: cell {at} of entry {index} of section {kind} set to {index}");
                            let outcome = catch_unwind(AssertUnwindSafe(|| match PreparedModule::from_slice(&damaged) {
                                Err(error) => {
                                    coded(&error, &what);
                                    true
                                }
                                Ok(_) => {
                                    explain_image(&damaged).unwrap_or_else(|e| panic!("prepares but does not explain: {e}"));
                                    false
                                }
                            }));
                            match outcome {
                                Ok(was_refused) => refused += usize::from(was_refused),
                                Err(payload) => {
                                    let message = payload
                                        .downcast_ref::<String>()
                                        .cloned()
                                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                                        .unwrap_or_default();
                                    panic!("{what}: {message}");
                                }
                            }
                            tried += 1;
                        }
                    }
                }
            }
        }
        (tried, refused)
    });
    println!("self references: {tried} tried, {refused} refused, {} explained", tried - refused);
    assert!(tried > 0);
}
