//! Every input a fuzz target (`fuzz/` at the repository root) crashed, hung or ran out of memory
//! on, kept under `tests/regressions/<target>/` and replayed through the target's own case
//! (`nx_ir_core::testing::fuzz`): each must now finish, quickly, without a panic. The cases
//! themselves assert what a refusal and a result must be. And a fixed sample of the evaluate
//! target's structured mutations of every corpus program, as a deterministic smoke of both.

mod support;

use nx_ir_core::image::PreparedModule;
use nx_ir_core::testing::fuzz::{assemble_case, evaluate_case, link_case, mutate_evaluate_case, prepare_case, write_chunks, Bytes};
use support::corpus;
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// A replay slower than this is a hang (libFuzzer's timeout was 10 s under AddressSanitizer).
const LIMIT: Duration = Duration::from_secs(30);

fn replay(target: &str, case: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions").join(target);
    let mut inputs: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|entry| entry.expect("a directory entry").path()).collect(),
        Err(_) => return 0,
    };
    inputs.sort();
    for path in &inputs {
        let data = std::fs::read(path).expect("a regression input");
        let name = path.display().to_string();
        let (done, finished) = mpsc::channel();
        let worker = thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                case(&data);
                let _ = done.send(());
            })
            .expect("a thread");
        match finished.recv_timeout(LIMIT) {
            Ok(()) => worker.join().expect("the replay finished"),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                if let Err(payload) = worker.join() {
                    eprintln!("{name} panicked");
                    std::panic::resume_unwind(payload);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name} did not finish within {LIMIT:?}"),
        }
    }
    inputs.len()
}

#[test]
fn prepare_module_regressions() {
    replay("prepare_module", prepare_case);
}

#[test]
fn link_program_regressions() {
    replay("link_program", link_case);
}

#[test]
fn evaluate_regressions() {
    assert!(replay("evaluate", evaluate_case) >= 1);
}

#[test]
fn assemble_regressions() {
    replay("assemble", assemble_case);
}

/// The assemble target's input (`assemble_case`): flags (schema 5, a source), the text, the
/// source, the linked texts.
fn assemble_input(text: &str, schema: u32, source: Option<&str>, linked: &[&str]) -> Vec<u8> {
    let flags = u8::from(schema == 5) | if source.is_some() { 2 } else { 0 };
    let parts: Vec<&[u8]> = [text].into_iter().chain(source).chain(linked.iter().copied()).map(str::as_bytes).collect();
    let mut input = vec![flags];
    input.extend(write_chunks(&parts));
    input
}

/// Every explain text the repository holds, through the assemble target's case as schema 5 and
/// as schema 6, with the texts beside it as links: each assembles to an image that explains and
/// assembles to itself again, or is refused with the assembler's code.
#[test]
fn the_repository_texts_hold_the_assemble_case() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The folders fuzz/seed.py seeds the target from (its TEXT_FOLDERS).
    let folders = ["src", "tests/schema6", "../../benches/programs", "../../python/nx_agent/examples"];
    let mut count = 0;
    for folder in folders {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(folder))
            .expect("a folder of explain texts")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.to_string_lossy().ends_with(".nxir.txt"))
            .collect();
        paths.sort();
        let texts: Vec<String> = paths.iter().map(|path| std::fs::read_to_string(path).expect("an explain text")).collect();
        for (i, text) in texts.iter().enumerate() {
            let beside: Vec<&str> = texts.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, t)| t.as_str()).collect();
            for schema in [5, 6] {
                assemble_case(&assemble_input(text, schema, None, &beside));
                count += 1;
            }
        }
    }
    assert!(count >= 40, "{count} texts");
}

/// Every explain text of the corpus (stripped, and full with its source) through the assemble
/// target's case, as schema 5, with the program's texts as links (as the corpus tests assemble them).
#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn the_corpus_texts_hold_the_assemble_case() {
    let Some(dir) = corpus::dir_or_skip("assemble case") else {
        return;
    };
    let mut count = 0;
    for program in corpus::programs(&dir) {
        let texts = corpus::program_texts(&program);
        let linked = corpus::linked(&texts);
        for input in corpus::every_text(&program, &texts) {
            assemble_case(&assemble_input(&input.text, 5, input.options.source.as_deref(), &linked));
            count += 1;
        }
    }
    assert!(count > 0);
}

/// Per corpus program, an evaluate input calling each function entrypoint with no arguments
/// over its stripped images, mutated with 16 fixed seeds: most mutants still prepare (the point
/// of the structured mutation), and every one evaluates without a panic.
#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn structured_mutations_of_the_corpus_evaluate() {
    let Some(dir) = corpus::dir_or_skip("structured mutations") else {
        return;
    };
    let (mut mutants, mut prepared) = (0usize, 0usize);
    for program in corpus::programs(&dir) {
        for (_, images) in corpus::entry_first_image_sets(&program) {
            let parts: Vec<&[u8]> = images.iter().map(Vec::as_slice).collect();
            // flags 0: evaluate_function; the call: entrypoint 0, budget and limits from the flags.
            let call = [0u8; 11];
            let mut input = vec![0u8];
            input.extend(write_chunks(&[&call]));
            input.extend(write_chunks(&parts));
            evaluate_case(&input);
            for seed in 1..=16u64 {
                let mutant = mutate_evaluate_case(&input, seed * 0x9E37_79B9).expect("the corpus images prepare");
                let mut bytes = Bytes::new(&mutant);
                bytes.u8();
                let chunks: Vec<&[u8]> = std::iter::from_fn(|| bytes.chunk()).collect();
                mutants += 1;
                prepared += usize::from(chunks[1..].iter().all(|c| PreparedModule::from_slice(c).is_ok()));
                evaluate_case(&mutant);
            }
        }
    }
    println!("structured mutations: {prepared} of {mutants} prepare");
    assert!(mutants > 0 && prepared * 2 > mutants, "{prepared} of {mutants}");
}
