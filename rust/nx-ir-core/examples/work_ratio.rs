//! Replays evaluate-case inputs (a fuzz corpus folder, e.g. `fuzz/corpus/work_bound`) through the
//! work-bound case and prints the worst work ratio found: work / (operations + input size + free
//! copies + 1), against the bound `WORK_PER_UNIT`.
//!
//! `cargo run --release -p nx-ir-core --example work_ratio -- fuzz/corpus/work_bound`

use nx_ir_core::testing::fuzz::{work_of_case, WORK_PER_UNIT};

fn main() {
    let dir = std::env::args().nth(1).expect("a folder of inputs");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("a folder").map(|e| e.expect("an entry").path()).collect();
    paths.sort();
    let (mut ran, mut worst) = (0usize, (0.0f64, String::new()));
    for path in &paths {
        let Ok(data) = std::fs::read(path) else { continue };
        if let Some(paid) = work_of_case(&data) {
            ran += 1;
            let ratio = paid.work as f64 / paid.units() as f64;
            if ratio > worst.0 {
                worst = (ratio, format!("{}: {paid:?}", path.display()));
            }
        }
    }
    println!("{} inputs, {ran} reached a call; K = {WORK_PER_UNIT}; worst ratio {:.2} ({})", paths.len(), worst.0, worst.1);
}
