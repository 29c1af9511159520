//! The built-in prelude, `@nx/prelude.nx` at contract version `"1"`: the module the linker
//! supplies when a host's resolver does not.
//!
//! It declares the record `Range` (fields `start: object`, `end: object` and
//! `endInclusive: boolean`, all required), its derived update record `Range.Update` and its
//! derived property union `Range.Property`. We keep it as explain text ([`PRELUDE_TEXT`], written
//! from §1.8 of the format) and build the image with the assembler; the emitter's rules make it
//! the same 604 bytes the reference runtimes publish, which a test pins by size and SHA-256.

use crate::assemble::{assemble, AssembleOptions};
use crate::error::{codes, IrError, IrResult};
use crate::image::PreparedModule;
use crate::model::Module;
use std::sync::{Arc, OnceLock};

/// The prelude's reserved identity.
pub const PRELUDE_IDENTITY: &str = "@nx/prelude.nx";
/// The prelude contract version compiled images record for it.
pub const PRELUDE_VERSION: &str = "1";
/// The prelude as explain text.
pub const PRELUDE_TEXT: &str = include_str!("prelude.nxir.txt");

/// The prelude as a model, assembled from [`PRELUDE_TEXT`].
pub fn prelude_model() -> IrResult<Module> {
    let options = AssembleOptions { source: None, version: PRELUDE_VERSION.to_string() };
    assemble(PRELUDE_TEXT, &options)
}

/// The built-in prelude, prepared once per process and shared. A failure to build or prepare
/// it is `nx-ir-prelude-image`.
pub fn builtin() -> IrResult<Arc<PreparedModule>> {
    static PRELUDE: OnceLock<IrResult<Arc<PreparedModule>>> = OnceLock::new();
    PRELUDE
        .get_or_init(|| {
            prelude_model()
                .and_then(|model| PreparedModule::from_vec(crate::writer::encode(&model)))
                .map(Arc::new)
                .map_err(|error| {
                    IrError::new(
                        codes::PRELUDE_IMAGE,
                        format!("The built-in prelude could not be prepared: {error}"),
                    )
                })
        })
        .clone()
}
