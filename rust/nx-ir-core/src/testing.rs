//! Test support shared by this crate's tests and its users' tests. Not part of the API.
//!
//! [`damage_sweep`] is the reference runtimes' damage test (conformance cases B1 and B2) applied
//! to one image: every truncation and every single-cell overwrite must be refused with a coded
//! error, or prepare into a module that decodes and re-encodes consistently. Any panic is
//! reported naming the damage that caused it. [`damage_sweep_with`] hands each damaged image that
//! prepares to the caller, to link and evaluate it too. [`check_image`] is that check for one
//! image, and [`fuzz`] holds the cases of the fuzz targets (`fuzz/` at the repository root).

use crate::error::codes;
use crate::image::PreparedModule;
use crate::writer::encode;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub mod fuzz;
pub mod instances;
pub mod schema6;
pub mod typed_calls;

/// The standard operations of schema 6 (`standardMath`, `standardColor`), for the oracle crate.
pub mod stdlib {
    pub use crate::eval::stdlib::css_names::css_color_names;
    pub use crate::eval::stdlib::{
        codes, color_op_arity, color_op_code, color_op_name, evaluate_color, evaluate_math, math_argument_error,
        MathOp, StdError, COLOR_OP_COUNT,
    };
}

/// The values each cell is overwritten with.
pub const DAMAGE_VALUES: [u32; 4] = [0, 1, 0xFFFF_FFFF, 0x7FFF_FFF0];

/// What a sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DamageReport {
    /// Truncated prefixes tried (all refused).
    pub truncations: usize,
    /// Overwritten images tried.
    pub overwrites: usize,
    /// Overwritten images refused with a coded error.
    pub refused: usize,
    /// Overwritten images that prepared (and decoded and re-encoded consistently).
    pub prepared: usize,
}

/// Runs the sweep over `image`, panicking with a description of the first violation.
///
/// * Every prefix cut at a four-byte boundary (`0, 4, …, len - 4`) is refused with
///   `nx-ir-format` or `nx-ir-malformed`.
/// * Every cell overwritten with each of [`DAMAGE_VALUES`] is refused with a coded error, or
///   prepares; then [`PreparedModule::to_model`] re-encoded must prepare again and decode to the
///   same model (compared through its encoding, so NaN constants compare by bits).
pub fn damage_sweep(image: &[u8]) -> DamageReport {
    damage_sweep_with(image, 1, |_, _| {})
}

/// [`damage_sweep`] overwriting every `stride`-th cell only (`1`: every cell; a large image
/// costs a sweep quadratic in its size), handing every overwritten image that prepares to
/// `prepared` with a description of its damage (`byte 12 overwritten with 0x1`). A panic in
/// `prepared` is reported naming the damage, as one in the reader is. Every truncation is tried
/// whatever the stride.
pub fn damage_sweep_with(image: &[u8], stride: usize, mut prepared: impl FnMut(&str, PreparedModule)) -> DamageReport {
    assert!(stride > 0, "a stride of at least one cell");
    let mut report = DamageReport::default();
    for cut in (0..image.len()).step_by(4) {
        let outcome = guarded(&format!("the prefix of {cut} bytes"), || PreparedModule::from_slice(&image[..cut]));
        match outcome {
            Ok(_) => panic!("the prefix of {cut} bytes prepared"),
            Err(error) => assert!(
                error.code() == codes::FORMAT || error.code() == codes::MALFORMED,
                "the prefix of {cut} bytes was refused with {error}"
            ),
        }
        report.truncations += 1;
    }

    let mut damaged = image.to_vec();
    for at in (0..image.len() / 4 * 4).step_by(4 * stride) {
        for value in DAMAGE_VALUES {
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
            let what = format!("byte {at} overwritten with {value:#x}");
            match guarded(&what, || check_image(&damaged)) {
                Ok(Some(module)) => {
                    report.prepared += 1;
                    guarded(&format!("{what}, then linking or evaluating it,"), || prepared(&what, module));
                }
                Ok(None) => report.refused += 1,
                Err(failure) => panic!("{what}: {failure}"),
            }
            report.overwrites += 1;
        }
        damaged[at..at + 4].copy_from_slice(&image[at..at + 4]);
    }
    report
}

/// `Ok(None)` if `bytes` are refused with a coded error, the module if they prepare and
/// round-trip, `Err` describing what broke.
pub fn check_image(bytes: &[u8]) -> Result<Option<PreparedModule>, String> {
    let module = match PreparedModule::from_slice(bytes) {
        Err(error) if error.diagnostics.is_empty() => return Err("refused without a diagnostic".to_string()),
        Err(error) if error.diagnostics.iter().any(|d| !d.code.starts_with("nx-ir-")) => {
            return Err(format!("refused with an unknown code: {error}"))
        }
        Err(_) => return Ok(None),
        Ok(module) => module,
    };
    // Read everything a consumer might read, in place.
    let _ = (module.identity(), module.version(), module.links(), module.function_entrypoints());
    let _ = (module.component_entrypoints(), module.source(), module.required_features());
    for index in 0..module.node_count() as u32 {
        let _ = module.node_span(index);
    }
    let model = module.to_model();
    if model.nodes.len() != module.node_count() || model.declarations.len() != module.declaration_count() {
        return Err("to_model() left entries out".to_string());
    }
    let encoded = encode(&model);
    let again = PreparedModule::from_slice(&encoded).map_err(|error| format!("its re-encoding is refused: {error}"))?;
    if encode(&again.to_model()) != encoded {
        return Err("its re-encoding decodes differently".to_string());
    }
    Ok(Some(module))
}

/// Runs `f`, turning a panic into an `Err` naming `what`.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            panic!("{what} caused a panic: {message}")
        }
    }
}
