//! Damaged stored component instances (`nx_ir_core::testing::instances::stored_instance_case`):
//! bytes or JSON restored for the bundled conversation flow and corpus programs must be refused
//! with `nx-ir-component` or restore to an instance that writes out alike and dispatches to a
//! result or a coded refusal. With `NX_FUZZ_SEEDS` set to a folder, the seeds (every component's
//! instances over a few dispatches, as bytes and JSON) are written there first.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use nx_ir_core::testing::instances::{fuzz_programs, instance_seeds, stored_instance_case, InstanceProgram};

fn programs() -> &'static [InstanceProgram] {
    static PROGRAMS: OnceLock<Vec<InstanceProgram>> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let programs = fuzz_programs();
        if let Some(folder) = std::env::var_os("NX_FUZZ_SEEDS") {
            let folder = std::path::PathBuf::from(folder);
            let _ = std::fs::create_dir_all(&folder);
            for (at, seed) in instance_seeds(&programs).into_iter().enumerate() {
                let _ = std::fs::write(folder.join(format!("seed-{at:04}")), seed);
            }
        }
        programs
    })
}

fuzz_target!(|data: &[u8]| stored_instance_case(programs(), data));
