//! Our own schema 6 programs (`rust/nx-ir-core/tests/schema6/programs.txt`) as the oracle runs
//! them, and the expected outcomes it stores for nx-ir-core's own test
//! (`rust/nx-ir-core/tests/schema6/expected.json`), taken from `nx-ir-runtime` 0.10.0.

use crate::corpus::{Call, Image, Lifecycle, Program};

#[path = "../../rust/nx-ir-core/tests/support/programs6.rs"]
#[allow(dead_code)]
pub mod spec;

/// Every program of the manifest, assembled.
pub fn programs() -> Vec<Program> {
    spec::programs()
        .into_iter()
        .map(|program| {
            let images = program
                .assemble()
                .into_iter()
                .map(|m| Image { identity: m.identity, file: m.file, stripped: false, bytes: m.bytes })
                .collect::<Vec<_>>();
            let calls = program
                .calls
                .iter()
                .map(|call| Call {
                    module: call.module.clone(),
                    function: call.function.clone(),
                    case: Some(call.case.clone()),
                    arguments: call.arguments.clone(),
                })
                .collect();
            let lifecycles = program
                .lifecycles
                .iter()
                .map(|l| Lifecycle { module: l.module.clone(), component: l.component.clone(), props: l.props.clone(), batches: l.batches.clone() })
                .collect();
            Program { name: program.name.clone(), entry: images.first().map(|i| i.identity.clone()), calls, images, lifecycles }
        })
        .collect()
}
