//! The damage sweep (conformance cases B1 and B2) over the prelude and the hand-built images.

mod support;

use nx_ir_core::model::Module;
use nx_ir_core::prelude::prelude_model;
use nx_ir_core::testing::{damage_sweep, DAMAGE_VALUES};
use nx_ir_core::writer::encode;
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
    sweep(&prelude_model().expect("the prelude assembles"));
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
