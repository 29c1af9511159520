//! Every input a fuzz target (`fuzz/` at the repository root) crashed, hung or ran out of memory
//! on, kept under `tests/regressions/<target>/` and replayed through the target's own case
//! (`nx_ir_core::testing::fuzz`): each must now finish, quickly, without a panic. The cases
//! themselves assert what a refusal and a result must be.

use nx_ir_core::testing::fuzz::{evaluate_case, link_case, prepare_case};
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
